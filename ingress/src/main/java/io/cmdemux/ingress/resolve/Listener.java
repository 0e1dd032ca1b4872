package io.cmdemux.ingress.resolve;

import io.cmdemux.ingress.wire.PortSpace;

import io.cmdemux.namespaces.NetnsId;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * One rdma_cm listener: an rdma_bind_addr + rdma_listen in some namespace.
 *
 * @param address the bound address; null for an AF_IB listener
 * @param afonly IPV6_V6ONLY semantics for a wildcard IPv6 listener (rdma_set_afonly)
 * @param boundIfindex bound_dev_if (the interface an IPv6 link-local bind names), 0 for none
 * @param bindOrder larger means bound later; the kernel's bind list puts the newest first
 * @param device the RDMA device the listener is attached to, null for a wildcard listener
 *     (which the kernel clones onto every device the namespace may use)
 * @param owner who registered it, for traces: a consumer id or "cli"
 * @param portSpace the port space of its bind list, which is the id's own except for an AF_IB id
 *     (cma_select_ib_ps puts an RDMA_PS_IB id whose service ID has the TCP or UDP prefix in that list)
 * @param qpType the id's QP type, which cma_ib_check_req_qp_type compares with the request's
 */
public record Listener(NetnsId netns, PortSpace portSpace, int port, InetAddress address, boolean afonly,
        int boundIfindex, long bindOrder, String device, String owner, QpType qpType) {

    public Listener {
        Objects.requireNonNull(netns, "netns");
        Objects.requireNonNull(portSpace, "portSpace");
        Objects.requireNonNull(qpType, "qpType");
    }

    /** A listener with the QP type ucma gives its port space (RC, or UD for RDMA_PS_UDP and RDMA_PS_IPOIB). */
    public Listener(NetnsId netns, PortSpace portSpace, int port, InetAddress address, boolean afonly,
            int boundIfindex, long bindOrder, String device, String owner) {
        this(netns, portSpace, port, address, afonly, boundIfindex, bindOrder, device, owner,
                QpType.defaultFor(portSpace));
    }

    /**
     * afonly as rdma_bind_addr decides it when the user did not set it: always for AF_INET, the
     * namespace's net.ipv6.bindv6only (0 by default) for AF_INET6.
     */
    public static boolean defaultAfonly(InetAddress address) {
        return address instanceof Inet4Address;
    }

    public boolean afIb() {
        return address == null;
    }

    /** cma_any_addr: the zero address or loopback. */
    public boolean anyAddress() {
        return address != null && (address.isAnyLocalAddress() || address.isLoopbackAddress());
    }

    public int ipVersion() {
        if (address instanceof Inet4Address) {
            return 4;
        }
        return address instanceof Inet6Address ? 6 : 0;
    }
}
