package io.cmdemux.ingress.resolve;

import java.util.Objects;

/**
 * One thing a step chose among.
 *
 * @param rejected why this one was not taken, or null when it qualified (the one chosen, or one
 *     that qualified too but lost to it; the step's text says which)
 */
public record TraceCandidate(TraceRef ref, String rejected) {
    public TraceCandidate {
        Objects.requireNonNull(ref, "ref");
    }

    public static TraceCandidate ok(TraceRef ref) {
        return new TraceCandidate(ref, null);
    }
}
