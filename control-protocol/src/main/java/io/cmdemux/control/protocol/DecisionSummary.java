package io.cmdemux.control.protocol;

import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.ResolverMode;

/**
 * The part of a decision a consumer is told with each request.
 *
 * @param rejectReason null unless the outcome is REJECT
 * @param ifindex the final netdev's ifindex in the namespace, 0 for none (AF_IB)
 * @param netnsInode 0 when no namespace was reached
 */
public record DecisionSummary(Decision.Outcome outcome, ResolverMode mode, Integer rejectReason, int ifindex,
        long netnsInode, long topologyGeneration) {
    public static DecisionSummary of(Decision d) {
        return new DecisionSummary(d.outcome(), d.mode(), d.rejectReason(),
                d.netdev() == null ? 0 : d.netdev().ifindex(),
                d.netns() == null ? 0 : d.netns().inode(),
                d.topologyGeneration());
    }
}
