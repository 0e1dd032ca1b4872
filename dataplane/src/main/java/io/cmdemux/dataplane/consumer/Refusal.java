package io.cmdemux.dataplane.consumer;

/** A consumer's answer the data plane cannot act on, and why; the control server tells the consumer. */
public final class Refusal extends Exception {
    /** Why the answer was refused. */
    public enum Kind {
        /** The trace ID or comm ID is no connection of this consumer's. */
        NOT_YOURS,
        /** The connection is in a state where the answer makes no sense (answered already, not established). */
        WRONG_STATE
    }

    private final Kind kind;

    public Refusal(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
