package io.cmdemux.ingress.resolve;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import java.util.List;

/**
 * What happens to a connection request, and why.
 *
 * @param rejectReason when the outcome is REJECT: the CM REJ reason (8 or 28) for a REQ, or the SIDR_REP
 *     status for a SIDR REQ (1 unsupported where a REQ gets 8, 2 reject where it gets 28)
 * @param dropReason why the request is silently dropped, in words, when the outcome is DROP
 * @param drop the same as a kind, for counters (drops_total{reason}); null unless the outcome is DROP
 * @param netdev the final net device, or null (AF_IB, or none found)
 * @param netns the namespace the request belongs to, or null when none was reached
 */
public record Decision(
        Outcome outcome,
        Integer rejectReason,
        String dropReason,
        Drop drop,
        LinkRef netdev,
        NetnsId netns,
        Listener listener,
        ResolverMode mode,
        List<TraceStep> trace,
        long topologyGeneration) {

    public enum Outcome { DELIVER, REJECT, DROP }

    /** Why a request is dropped without an answer, as drops_total's reason label names it. */
    public enum Drop {
        /** The frame's ICRC is wrong or missing: the receiver drops it before the CM (rxe_icrc_check). */
        BAD_ICRC("bad-icrc"),
        /** The request named no RDMA port of this host. */
        NO_PORT("no-port"),
        /** No GID entry matched the packet: cm_req_handler sends nothing. */
        NO_GID("no-gid"),
        /**
         * ib_cm cannot reach the requester through the matched entry's net device (no route, or the device is down).
         */
        NO_ROUTE("no-route"),
        /** The netstack walk lost the frame (netstack mode). */
        NETSTACK("netstack"),
        /** The daemon holds --max-sessions connections (ucma's -ENOMEM, silent so that the peer retries). */
        SESSIONS_FULL("sessions-full"),
        /** The listener's consumer is not reading (ucma's full backlog, silent so that the peer retries). */
        CONSUMER_BACKLOG("consumer-backlog");

        private final String label;

        Drop(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    // IBTA Table 112 / enum ib_cm_rej_reason
    public static final int REJ_INVALID_GID = 2;
    public static final int REJ_INVALID_SERVICE_ID = 8;
    public static final int REJ_CONSUMER_DEFINED = 28;
    // enum ib_cm_sidr_status: what a SIDR REQ gets where a REQ gets REJ 8 or REJ 28
    public static final int SIDR_UNSUPPORTED = 1;
    public static final int SIDR_REJECT = 2;

    public Decision {
        trace = trace instanceof RenderedOnDemand || trace instanceof Prefixed ? trace : List.copyOf(trace);
    }

    /**
     * The same decision with {@code first} before its trace: a step taken before the resolver ran,
     * such as the choice of the port a captured frame arrived on ({@link IngressPorts}).
     */
    public Decision withFirstStep(TraceStep first) {
        return new Decision(outcome, rejectReason, dropReason, drop, netdev, netns, listener, mode,
                new Prefixed(first, trace), topologyGeneration);
    }

    /** One step, then a trace that may still be written when first read. */
    private static final class Prefixed extends java.util.AbstractList<TraceStep> implements java.util.RandomAccess {
        private final TraceStep first;
        private final List<TraceStep> rest;

        Prefixed(TraceStep first, List<TraceStep> rest) {
            this.first = java.util.Objects.requireNonNull(first, "first");
            this.rest = rest;
        }

        @Override
        public TraceStep get(int index) {
            return index == 0 ? first : rest.get(index - 1);
        }

        @Override
        public int size() {
            return rest.size() + 1;
        }
    }

    /** The same decision, dropped for {@code drop} instead (what the dispatcher does when it cannot keep a request). */
    public Decision droppedFor(Drop drop, String why) {
        return new Decision(Outcome.DROP, null, why, drop, netdev, netns, listener, mode, trace, topologyGeneration);
    }

    /** The same answer, ignoring the trace wording: outcome, reason, netdev, namespace, listener. */
    public boolean sameAnswer(Decision o) {
        return outcome == o.outcome
                && java.util.Objects.equals(rejectReason, o.rejectReason)
                && drop == o.drop
                && java.util.Objects.equals(netdev, o.netdev)
                && java.util.Objects.equals(netns, o.netns)
                && java.util.Objects.equals(listener, o.listener);
    }
}
