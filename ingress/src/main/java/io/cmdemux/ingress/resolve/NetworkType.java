package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.GidType;

/** enum rdma_network_type, as ib_init_ah_attr_from_wc derives it from the received packet. */
public enum NetworkType {
    IB(GidType.IB),
    ROCE_V1(GidType.ROCE_V1),
    ROCE_V2(GidType.ROCE_V2);

    private final GidType gidType;

    NetworkType(GidType gidType) {
        this.gidType = gidType;
    }

    /** The GID type an entry must have to match a packet of this network type. */
    public GidType gidType() {
        return gidType;
    }
}
