package io.cmdemux.control.protocol;

/**
 * Bytes or a message that break the protocol: the errno the daemon answers with, where the
 * problem is (byte offset in the frame, or -1 when it is not about one place) and why.
 */
public final class ProtocolException extends Exception {
    private final int status;
    private final int offset;
    private final String reason;

    public ProtocolException(int status, int offset, String reason) {
        super(offset >= 0 ? reason + " at offset " + offset : reason, null, false, false);
        this.status = status;
        this.offset = offset;
        this.reason = reason;
    }

    public ProtocolException(int status, String reason) {
        this(status, -1, reason);
    }

    public int status() {
        return status;
    }

    public int offset() {
        return offset;
    }

    public String reason() {
        return reason;
    }
}
