package io.cmdemux.pathrecord.source;

import java.io.IOException;

/** The source was asked and has no path for the query (SA status NO_RECORDS, an UNREACHABLE or absent static entry). */
public final class NoPathException extends IOException {
    public NoPathException(String message) {
        super(message);
    }
}
