package io.cmdemux.netdev;

import java.io.IOException;

/** A failed syscall: which call, and the errno it returned. */
public final class NativeException extends IOException {
    private final String call;
    private final int errno;

    public NativeException(String call, int errno, String description) {
        super(call + ": " + ErrnoNames.name(errno) + " (" + description + ")");
        this.call = call;
        this.errno = errno;
    }

    public String call() {
        return call;
    }

    public int errno() {
        return errno;
    }
}
