package io.cmdemux.ingress.resolve;

import io.cmdemux.ingress.wire.PortSpace;

/**
 * The QP types the RDMA CM compares in cma_ib_check_req_qp_type (enum ib_qp_type, include/rdma/ib_verbs.h).
 * A listener's type comes from its rdma_cm id: ucma_get_qp_type makes RDMA_PS_TCP ids RC and
 * RDMA_PS_UDP and RDMA_PS_IPOIB ids UD, and lets an RDMA_PS_IB id choose (librdmacm's
 * rdma_create_id chooses RC). A REQ's type comes from its transport service type
 * (cm_req_get_qp_type in drivers/infiniband/core/cm.c).
 */
public enum QpType {
    RC(2, "RC"),
    UC(3, "UC"),
    UD(4, "UD"),
    XRC_TGT(10, "XRC_TGT");

    private final int code;
    private final String rdmaName;

    QpType(int code, String rdmaName) {
        this.code = code;
        this.rdmaName = rdmaName;
    }

    /** The ib_qp_type value. */
    public int code() {
        return code;
    }

    /** The name `rdma res show` prints (qp-type). */
    public String rdmaName() {
        return rdmaName;
    }

    /**
     * cm_req_get_qp_type: transport service type 0 is RC, 1 UC, 3 with extended transport type 0
     * XRC_TGT; anything else is the kernel's 0, which no listener of rdma_cm's has (null here).
     */
    public static QpType ofReq(int transportServiceType, int extendedTransportType) {
        switch (transportServiceType) {
            case 0:
                return RC;
            case 1:
                return UC;
            case 3:
                return extendedTransportType == 0 ? XRC_TGT : null;
            default:
                return null;
        }
    }

    /**
     * What ucma_get_qp_type gives an id of this port space when the user has no say (RC for RDMA_PS_IB, as librdmacm).
     */
    public static QpType defaultFor(PortSpace ps) {
        return ps == PortSpace.UDP || ps == PortSpace.IPOIB ? UD : RC;
    }

    /** By ib_qp_type value or rdma's name (RC, UC, UD, XRC_TGT; XRC_RECV as librdmacm calls it). */
    public static QpType parse(String s) {
        String t = s.trim().toUpperCase();
        if (t.equals("XRC_RECV")) {
            return XRC_TGT;
        }
        for (QpType q : values()) {
            if (q.rdmaName.equals(t) || Integer.toString(q.code).equals(t)) {
                return q;
            }
        }
        throw new IllegalArgumentException("unknown QP type '" + s + "' (RC, UC, UD or XRC_TGT)");
    }
}
