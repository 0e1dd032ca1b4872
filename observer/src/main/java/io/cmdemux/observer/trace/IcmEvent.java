package io.cmdemux.observer.trace;

/**
 * One of ib_cm's tracepoints (include/trace/events/... cm_trace.h, TRACE_SYSTEM ib_cma): "local_id=%u remote_id=%u
 * state=%s" plus "lap_state=%s" or, for icm_send_rej, "reason=%s". The IDs are the comm IDs as the kernel holds
 * them (__be32 printed as a host integer), the value the REQ's Local Communication ID has in cmdemux's output.
 *
 * @param reason icm_send_rej's reason as the kernel names it (REJ_CONSUMER_DEFINED), otherwise null
 */
public record IcmEvent(TraceHeader header, long localId, long remoteId, String state, String reason)
        implements KernelEvent {
    public String event() {
        return header.event();
    }
}
