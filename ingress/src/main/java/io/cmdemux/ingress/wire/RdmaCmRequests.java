package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;
import java.net.InetAddress;

/**
 * The REQ an rdma_cm active side sends for rdma_connect over RoCE: the values cma_connect_ib and
 * cm_format_req put in it (RC, CMA_CM_RESPONSE_TIMEOUT 20, CMA_MAX_CM_RETRIES 15, retry and RNR
 * retry 7, MTU 1024, P_Key 0xffff) and the rdma_cm header in the private data.
 */
public final class RdmaCmRequests {
    /** CMA_CM_RESPONSE_TIMEOUT in cma.c: 4.096 µs × 2^20 ≈ 4.3 s per attempt. */
    public static final int CMA_CM_RESPONSE_TIMEOUT = 20;
    public static final int CMA_MAX_CM_RETRIES = 15;
    private static final int IB_MTU_1024 = 3;
    private static final int TRANSPORT_RC = 0;

    private RdmaCmRequests() {}

    /**
     * @param localCommId the active side's communication ID, unique per connection
     * @param localCaGuid the requester's CA GUID (with localCommId, what makes a retransmission recognisable)
     */
    public static CmReq req(int localCommId, long localCaGuid, int localQpn, int startingPsn, PortSpace ps,
            InetAddress src, int srcPort, InetAddress dst, int dstPort, byte[] consumerData) {
        return req(localCommId, localCaGuid, localQpn, startingPsn, ps, src, srcPort, dst, dstPort, consumerData,
                CMA_CM_RESPONSE_TIMEOUT);
    }

    /** @param cmResponseTimeout our and the peer's CM response timeout exponent (4.096 µs × 2^t), 20 in rdma_cm */
    public static CmReq req(int localCommId, long localCaGuid, int localQpn, int startingPsn, PortSpace ps,
            InetAddress src, int srcPort, InetAddress dst, int dstPort, byte[] consumerData, int cmResponseTimeout) {
        CmaHeader h = CmaHeader.of(src, srcPort, dst);
        CmPath primary = new CmPath(0, 0, Gid.ofIp(src), Gid.ofIp(dst), 0, 0, 0, 64, 0, false, 18);
        return new CmReq(localCommId, 0, ps.serviceId(dstPort), localCaGuid, 0, localQpn & 0xffffff, 1, 0, 1, 0,
                cmResponseTimeout, TRANSPORT_RC, true, startingPsn & 0xffffff, cmResponseTimeout, 7, 0xffff,
                IB_MTU_1024, false, 7, CMA_MAX_CM_RETRIES, false, 0, primary, CmPath.NONE, false,
                h.toPrivateData(consumerData == null ? new byte[0] : consumerData));
    }

    /**
     * The SIDR REQ an rdma_cm UD id sends for rdma_connect (cma_resolve_ib_udp): the request ID,
     * P_Key 0xffff, the service ID, and the rdma_cm header in the private data.
     */
    public static CmSidrReq sidr(
            int requestId, PortSpace ps, InetAddress src, int srcPort, InetAddress dst, int dstPort) {
        byte[] pd = CmaHeader.of(src, srcPort, dst).toPrivateData(new byte[0]).toByteArray();
        return new CmSidrReq(requestId, 0xffff, ps.serviceId(dstPort), Octets.of(pd));
    }
}
