package io.cmdemux.control.protocol;

/**
 * What the daemon tells a consumer about one of its connections.
 *
 * @param traceId the delivery the connection came from
 * @param localCommId the daemon's comm ID for it (ACCEPT's answer)
 * @param event one of the constants below
 * @param reason the REJ reason for REJECTED, 0 otherwise
 */
public record CmEventInfo(long traceId, int localCommId, int event, int reason) {
    /** The peer's RTU arrived: the connection is up (RDMA_CM_EVENT_ESTABLISHED). */
    public static final int ESTABLISHED = 1;
    /** The peer sent DREQ, or answered ours with DREP (RDMA_CM_EVENT_DISCONNECTED). */
    public static final int DISCONNECTED = 2;
    /** The peer rejected our REP (RDMA_CM_EVENT_REJECTED). */
    public static final int REJECTED = 3;
    /** REP or DREQ went unanswered through every retry (RDMA_CM_EVENT_UNREACHABLE / timeout). */
    public static final int TIMEOUT = 4;
    /** Time-wait ended; the comm ID is free again (RDMA_CM_EVENT_TIMEWAIT_EXIT). */
    public static final int TIMEWAIT_EXIT = 5;

    public String eventName() {
        switch (event) {
            case ESTABLISHED: return "established";
            case DISCONNECTED: return "disconnected";
            case REJECTED: return "rejected";
            case TIMEOUT: return "timeout";
            case TIMEWAIT_EXIT: return "timewait-exit";
            default: return "event-" + event;
        }
    }
}
