package io.cmdemux.netdev;

/** Bytes that do not parse: where, and why. Decoders throw nothing else for bad input. */
public final class MalformedException extends Exception {
    private final int offset;
    private final String reason;

    public MalformedException(int offset, String reason) {
        super(reason + " at offset " + offset, null, false, false);
        this.offset = offset;
        this.reason = reason;
    }

    public int offset() {
        return offset;
    }

    public String reason() {
        return reason;
    }

    /** The same error with its offset moved by {@code delta}, e.g. from a message to its datagram. */
    public MalformedException shifted(int delta) {
        return delta == 0 ? this : new MalformedException(offset + delta, reason);
    }
}
