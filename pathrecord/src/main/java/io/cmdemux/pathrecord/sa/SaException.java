package io.cmdemux.pathrecord.sa;

import java.io.IOException;

/** An SA query that could not be made or answered: the call and why, in words a user can act on. */
public final class SaException extends IOException {
    public SaException(String message) {
        super(message);
    }

    public SaException(String message, Throwable cause) {
        super(message, cause);
    }
}
