package io.cmdemux.netdev.testkit;

import java.lang.management.ManagementFactory;

/**
 * The contract of every reader of outside input, as the Jazzer fuzz targets of all modules check it:
 * a decode returns, or throws the decoder's own typed error; any other exception or error (unchecked
 * exceptions, StackOverflowError, OutOfMemoryError) escapes to Jazzer, which reports it as a finding;
 * and the decode allocates no more than a fixed amount plus a multiple of the input's size, so that a
 * length field claiming gigabytes cannot make the reader allocate them.
 */
public final class DecoderContract {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private DecoderContract() {}

    /** One decode of fuzzer input; it may throw anything, which {@link #check} sorts out. */
    public interface Decode {
        void run() throws Exception;
    }

    /**
     * How much one decode may allocate: {@code fixedBytes} (buffers, caps of the decoder's own) plus
     * {@code perInputByte} per byte of input.
     */
    public record Budget(long fixedBytes, long perInputByte) {
        public long of(long inputLength) {
            return fixedBytes + perInputByte * inputLength;
        }
    }

    /**
     * Runs {@code decode} on input of {@code inputLength} bytes; returns the typed error it threw (an
     * instance of one of {@code typed}), or null when it returned. Anything else it throws is rethrown.
     *
     * @throws AssertionError when it allocated more than the budget allows, twice in a row: a first
     *     decode also pays for class initialisation, which a second one does not repeat
     */
    @SafeVarargs
    public static Exception check(long inputLength, Budget budget, Decode decode, Class<? extends Exception>... typed)
            throws Exception {
        long limit = budget.of(inputLength);
        long before = THREADS.getCurrentThreadAllocatedBytes();
        Exception outcome = run(decode, typed);
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        if (allocated > limit) {
            before = THREADS.getCurrentThreadAllocatedBytes();
            outcome = run(decode, typed);
            allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            if (allocated > limit) {
                throw new AssertionError("decoding " + inputLength + " bytes of input allocated " + allocated
                        + " bytes, more than the " + limit + " allowed (" + budget + ")"
                        + (outcome == null ? "" : "; it then failed with " + outcome));
            }
        }
        return outcome;
    }

    @SafeVarargs
    private static Exception run(Decode decode, Class<? extends Exception>... typed) throws Exception {
        try {
            decode.run();
            return null;
        } catch (Exception e) {
            for (Class<? extends Exception> t : typed) {
                if (t.isInstance(e)) {
                    return e;
                }
            }
            throw e;
        }
    }
}
