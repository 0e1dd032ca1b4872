package io.cmdemux.observer.trace;

/**
 * ib_mad's receive and send tracepoints (ib_mad_recv_done_handler, ib_mad_ib_send_mad): the device index and port
 * ("%d:%d"), and the MAD header's class, method, attribute and transaction ID.
 */
public record MadEvent(TraceHeader header, int deviceIndex, int port, int mgmtClass, int method, int attrId, long tid)
        implements KernelEvent {
    /** IB_MGMT_CLASS_CM. */
    public static final int CLASS_CM = 0x07;
    /** CM_REQ_ATTR_ID, CM_SIDR_REQ_ATTR_ID (be16 in cm_msgs.h, printed in host order). */
    public static final int ATTR_REQ = 0x0010;
    public static final int ATTR_SIDR_REQ = 0x0017;

    public boolean received() {
        return "ib_mad_recv_done_handler".equals(header.event());
    }
}
