package io.cmdemux.observer.trace;

/**
 * One of rdma_cm's tracepoints (TRACE_SYSTEM rdma_cma): "cm.id=%u src=%pISpc dst=%pISpc" and then, by event, tos,
 * the event's name and status, or the device.
 *
 * @param cmId the rdma_cm id's restrack ID (its RDMA_NLDEV_ATTR_RES_CM_IDN on its device)
 * @param src the address as the kernel prints it (192.0.2.1:7471, [2001:db8::1]:7471, (einval))
 * @param what the event name printed after the addresses (CONNECT_REQUEST, REQ_RECEIVED), or null
 * @param device cm_id_attach's device, or null
 */
public record CmaEvent(TraceHeader header, int cmId, String src, String dst, String what, String device)
        implements KernelEvent {
    public String event() {
        return header.event();
    }
}
