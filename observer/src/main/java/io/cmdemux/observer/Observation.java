package io.cmdemux.observer;

import io.cmdemux.observer.nldev.CmIdEntry;

/**
 * One request the kernel received, with the listener and namespace it went to.
 *
 * @param listener the listener's cm_id from the nldev dump, or null (not delivered, or the listener is gone)
 * @param namespace the listener's process's namespace, or null
 */
public record Observation(KernelRequest request, CmIdEntry listener, NetnsRef namespace) {
    /** expected.tsv's vocabulary: deliver:NAME, reject:N, drop. */
    public String label() {
        KernelOutcome o = request.outcome();
        if (o instanceof KernelOutcome.Delivered) {
            return "deliver:" + (namespace == null ? "?" : namespace.displayName());
        }
        return o.label();
    }
}
