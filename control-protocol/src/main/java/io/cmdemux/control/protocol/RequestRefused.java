package io.cmdemux.control.protocol;

/**
 * A well-formed request the daemon says no to: the errno of the reply (EADDRINUSE, EADDRNOTAVAIL,
 * ENOENT, EPERM...) and a sentence for the person reading it.
 */
public final class RequestRefused extends Exception {
    private final int status;

    public RequestRefused(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }

    @Override
    public String toString() {
        return Wire.errnoName(status) + ": " + getMessage();
    }
}
