package io.cmdemux.ingress.wire;

/** rdma_cm port spaces (enum rdma_ucm_port_space, include/uapi/rdma/rdma_user_cm.h). */
public enum PortSpace {
    IPOIB(0x0002),
    TCP(0x0106),
    UDP(0x0111),
    IB(0x013F);

    private final int code;

    PortSpace(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The port space with this code, or null. */
    public static PortSpace byCode(int code) {
        for (PortSpace p : values()) {
            if (p.code == code) {
                return p;
            }
        }
        return null;
    }

    /** Whether rdma_cm puts its IP header (cma_hdr) in the private data of requests in this space. */
    public boolean carriesIpHeader() {
        return this != IB;
    }
}
