package io.cmdemux.observer.trace;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.testkit.DecoderContract;
import io.cmdemux.observer.Correlator;
import io.cmdemux.observer.RejectReasons;
import java.nio.charset.StandardCharsets;

/**
 * Jazzer fuzz target for the tracefs line parser (issue 20 §1): any line gives an event or a
 * MalformedTraceLineException, and the correlator takes any event the parser gives. The committed inputs
 * (TraceLineJazzerTestInputs/, see its README) are real lines of the lab recordings; scripts/fuzz fuzzes.
 */
class TraceLineJazzerTest {
    /**
     * A line is at most 64 KiB; its fields are a few small strings and arrays per input byte. 256 per byte under
     * fuzzing: Jazzer's hooks on the parser's String calls allocate on the measured thread too, and a 1,563-byte
     * input of some twenty event lines allocated 175,272 bytes there (112 per byte; 2026-12-03's campaign) while
     * `mvn verify` replays it within 64. Nothing in a line is a size the parser allocates by.
     */
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(64 << 10, 256);
    private static final RejectReasons REASONS = RejectReasons.fromFormat(
            "print fmt: \"reason=%s\", __print_symbolic(REC->reason, { 8, \"REJ_INVALID_SERVICE_ID\" },"
                    + " { 28, \"REJ_CONSUMER_DEFINED\" })");

    @FuzzTest
    void anyLineIsAnEventOrMalformed(byte[] input) throws Exception {
        // trace_pipe is bytes; the reader decodes it as one byte per character.
        String text = new String(input, StandardCharsets.ISO_8859_1);
        Correlator c = new Correlator(REASONS, true);
        DecoderContract.check(input.length, BUDGET, () -> {
            for (String line : text.split("\n", -1)) {
                KernelEvent e = new TraceLineParser().parse(line);
                if (e != null) {
                    c.accept(e);
                }
            }
            c.finish();
        }, MalformedTraceLineException.class);
    }
}
