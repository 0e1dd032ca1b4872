package io.cmdemux.ingress.resolve;

import io.cmdemux.ingress.wire.PortSpace;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.HwAddr;
import java.net.InetAddress;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The synthesised packet: everything the resolver reads from a connection request, the way the
 * netstack would see it.
 *
 * @param dgid the packet's destination GID: the outer IP destination of a RoCE frame (IPv4 as
 *     ::ffff:a.b.c.d), the GRH DGID on IB. RoCE GID matching uses this (ib_init_ah_attr_from_wc).
 * @param ourGid the REQ's primary remote port GID; IPoIB matching uses this (cma_save_req_info)
 * @param peerGid the REQ's primary local port GID
 * @param pkey the REQ's partition key; {@code bthPkey} the BTH's (a mismatch only warns)
 * @param cmaVersion byte 0 of the rdma_cm header; anything but 0 is refused (cma_save_ip_info)
 * @param ipVersion the header's IP version nibble; not 4 or 6 means AF_IB
 * @param dstIp our address from the rdma_cm header; null for AF_IB
 * @param srcIp the peer's address from the header; null for AF_IB
 * @param vlan the 802.1Q VID of the frame, when it had a tag
 * @param dmac the frame's destination MAC, when known
 * @param sidr a SIDR REQ (UD), not a REQ
 * @param localCommId the REQ's local communication ID, for traces and duplicate detection
 * @param qpType a REQ's QP type as cm_req_get_qp_type reads its transport service type; null for a
 *     SIDR REQ (always UD) and for a transport no rdma_cm listener has (the kernel's 0)
 * @param srcGid the packet's source GID: the outer IP source of a RoCE frame (IPv4 as
 *     ::ffff:a.b.c.d), the GRH SGID on IB; null when unknown. The response's address handle is made
 *     to it (ib_init_ah_attr_from_wc), where the REQ's own paths name {@code peerGid}
 */
public record PacketMeta(
        IngressKey key,
        NetworkType networkType,
        Gid dgid,
        Gid ourGid,
        Gid peerGid,
        int pkey,
        int bthPkey,
        long serviceId,
        int cmaVersion,
        int ipVersion,
        InetAddress dstIp,
        InetAddress srcIp,
        int srcPort,
        OptionalInt vlan,
        HwAddr dmac,
        boolean sidr,
        long localCommId,
        QpType qpType,
        Gid srcGid) {

    public PacketMeta {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(networkType, "networkType");
        vlan = vlan == null ? OptionalInt.empty() : vlan;
    }

    /** cma_get_ip_ver is neither 4 nor 6: the request uses native IB addressing. */
    public boolean afIb() {
        return ipVersion != 4 && ipVersion != 6;
    }

    public int port() {
        return (int) (serviceId & 0xffff);
    }

    /** rdma_ps_from_service_id; empty for a service ID outside the rdma_cm ranges. */
    public java.util.Optional<PortSpace> portSpace() {
        return PortSpace.ofServiceId(serviceId);
    }
}
