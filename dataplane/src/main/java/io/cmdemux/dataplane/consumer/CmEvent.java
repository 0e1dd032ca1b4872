package io.cmdemux.dataplane.consumer;

/**
 * What the data plane tells a consumer about one of its connections.
 *
 * @param traceId the delivery the connection came from
 * @param localCommId the daemon's comm ID for it (its ACCEPT's answer)
 * @param kind what happened
 * @param reason the REJ reason for REJECTED, the CM timeout reason for TIMEOUT, 0 otherwise
 */
public record CmEvent(long traceId, int localCommId, Kind kind, int reason) {
    /** The rdma_cm event each corresponds to. */
    public enum Kind {
        /** The peer's RTU arrived: the connection is up (RDMA_CM_EVENT_ESTABLISHED). */
        ESTABLISHED,
        /** The peer sent DREQ, or answered ours with DREP (RDMA_CM_EVENT_DISCONNECTED). */
        DISCONNECTED,
        /** The peer rejected our REP (RDMA_CM_EVENT_REJECTED). */
        REJECTED,
        /** REP or DREQ went unanswered through every retry (RDMA_CM_EVENT_UNREACHABLE / timeout). */
        TIMEOUT,
        /** Time-wait ended; the comm ID is free again (RDMA_CM_EVENT_TIMEWAIT_EXIT). */
        TIMEWAIT_EXIT
    }
}
