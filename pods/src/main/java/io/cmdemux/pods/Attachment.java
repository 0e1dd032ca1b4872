package io.cmdemux.pods;

import java.util.List;
import java.util.Objects;

/**
 * A pod interface on an RDMA port, with what RDMA CM will use for it.
 *
 * @param linkLayer "ethernet" (RoCE) or "infiniband"
 * @param gids one entry per pod IP on RoCE; empty on IB, where requests are matched by P_Key and port GID, not by IP
 * @param pkey the IPoIB child's P_Key on IB, -1 on RoCE
 * @param pkeyIndex its index in the port's P_Key table, -1 on RoCE
 */
public record Attachment(String ifname, int ifindex, String device, int port, String linkLayer,
        List<GidAssignment> gids, int pkey, int pkeyIndex) {
    public static final String ETHERNET = "ethernet";
    public static final String INFINIBAND = "infiniband";

    public Attachment {
        Objects.requireNonNull(ifname, "ifname");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(linkLayer, "linkLayer");
        gids = List.copyOf(gids);
    }
}
