package io.cmdemux.observer.trace;

import java.util.Arrays;

/**
 * The observer's kprobe cmdemux/req on cma_ib_req_handler (see ReqProbe): one REQ or SIDR REQ that ib_cm matched
 * to a listener, with its fields as the kernel's arguments hold them.
 *
 * @param cmEvent enum ib_cm_event_type: IB_CM_REQ_RECEIVED (1) or IB_CM_SIDR_REQ_RECEIVED (16)
 * @param localId the passive side's new comm ID
 * @param remoteId the requester's comm ID (the REQ's Local Communication ID)
 * @param serviceId in host order
 * @param pkey the primary path's P_Key for a REQ, the SIDR REQ's P_Key for a SIDR REQ
 * @param sgid the primary path's SGID (our GID) for a REQ, null for a SIDR REQ
 * @param dgid the primary path's DGID (the requester's GID), null for a SIDR REQ
 * @param cmaHeader the private data's first bytes (the rdma_cm header)
 * @param gidIndex the index of the GID entry ib_cm matched the request to, {@link #NO_GID_INDEX} when the recording
 *     has none; meaningful on RoCE ports only
 */
public record ReqProbeEvent(TraceHeader header, int cmEvent, long localId, long remoteId, long serviceId,
        String device, int port, int pkey, byte[] sgid, byte[] dgid, byte[] cmaHeader, int gidIndex)
        implements KernelEvent {
    public static final int NO_GID_INDEX = -1;

    /** enum ib_cm_event_type in include/rdma/ib_cm.h. */
    public static final int IB_CM_REQ_RECEIVED = 1;
    public static final int IB_CM_SIDR_REQ_RECEIVED = 16;

    public boolean sidr() {
        return cmEvent == IB_CM_SIDR_REQ_RECEIVED;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReqProbeEvent r && r.header.equals(header) && r.cmEvent == cmEvent && r.localId == localId
                && r.remoteId == remoteId && r.serviceId == serviceId && r.device.equals(device) && r.port == port
                && r.pkey == pkey && Arrays.equals(r.sgid, sgid) && Arrays.equals(r.dgid, dgid)
                && Arrays.equals(r.cmaHeader, cmaHeader) && r.gidIndex == gidIndex;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(remoteId) * 31 + header.hashCode();
    }

    @Override
    public String toString() {
        return "ReqProbeEvent[" + header + ", event=" + cmEvent + ", localId=" + localId + ", remoteId=" + remoteId
                + ", serviceId=0x" + Long.toHexString(serviceId) + ", device=" + device + ", port=" + port
                + ", gidIndex=" + gidIndex + "]";
    }
}
