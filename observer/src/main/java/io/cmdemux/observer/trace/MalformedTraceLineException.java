package io.cmdemux.observer.trace;

/**
 * A trace_pipe line that does not have the shape of an ftrace event line, or an event whose fields do not parse.
 * It has no stack trace: it is a counted skip, thrown once per bad line, never printed with one, and a stack
 * trace per line was most of what a garbled stream cost (TraceLineJazzerTest's campaign of 2026-12-03).
 */
public final class MalformedTraceLineException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int column;
    private final String reason;

    public MalformedTraceLineException(int column, String reason) {
        super("column " + column + ": " + reason, null, false, false);
        this.column = column;
        this.reason = reason;
    }

    /** The character of the line where parsing failed. */
    public int column() {
        return column;
    }

    /** Why, without the column: a stable text for counting skips by reason. */
    public String reason() {
        return reason;
    }
}
