package io.cmdemux.observer;

/** What the kernel did with one request, as its own events show it. */
public sealed interface KernelOutcome permits KernelOutcome.Delivered, KernelOutcome.Rejected, KernelOutcome.Silent {
    /** expected.tsv's vocabulary without the namespace: deliver, reject:N, drop. */
    String label();

    /**
     * rdma_cm handed the request to a listener (rdma_cma's cm_req_handler tracepoint fired for it).
     *
     * @param listenerCmId the listener's restrack ID on that device (cm.id in the tracepoint, RES_CM_IDN in nldev)
     * @param listenerAddress the listener's bound address as the tracepoint prints it
     */
    record Delivered(String device, int listenerCmId, String listenerAddress) implements KernelOutcome {
        @Override
        public String label() {
            return "deliver";
        }
    }

    /**
     * The kernel answered with a REJ, or a SIDR REP with a non-zero status.
     *
     * @param reason the REJ reason (enum ib_cm_rej_reason) or the SIDR REP status (enum ib_cm_sidr_status)
     * @param why the event that showed it
     */
    record Rejected(int reason, boolean sidr, String why) implements KernelOutcome {
        @Override
        public String label() {
            return "reject:" + reason;
        }
    }

    /** The request arrived and nothing answered it: the requester times out. */
    record Silent(String why) implements KernelOutcome {
        @Override
        public String label() {
            return "drop";
        }
    }
}
