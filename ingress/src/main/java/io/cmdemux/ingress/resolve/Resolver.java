package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.Gid;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import java.util.List;
import java.util.OptionalInt;

/**
 * Resolver.resolve(state, meta, mode) → Decision: a pure function. KERNEL mode follows the Linux
 * RDMA CM step by step (cm.c cm_req_handler, cma.c cma_ib_id_from_event, ipoib_main.c
 * ipoib_get_net_dev_by_params); NETSTACK mode walks the synthesised packet up the receive path.
 * Each step lands in the decision's trace with the kernel function it mirrors. The steps common
 * to both modes are {@link Walk}'s; {@link KernelNetdev} finds the kernel's net device,
 * {@link NetstackWalk} the netstack's, and {@link ListenerMatch} the listener.
 */
public final class Resolver {
    private Resolver() {}

    /** The decision; its trace is written when first read (see {@link RenderedOnDemand}). */
    public static Decision resolve(HostState state, PacketMeta meta, ResolverMode mode) {
        return new Walk(state, meta, mode, false).run();
    }

    /** The same walk, writing its trace as it goes. */
    static Decision resolveTraced(HostState state, PacketMeta meta, ResolverMode mode) {
        return new Walk(state, meta, mode, true).run();
    }

    /**
     * The net device and namespace the kernel would tie to (device, port, GID, P_Key[, IP]) when
     * no listener is involved: ipoib_get_net_dev_by_params with {@code gid} as our GID on an IB
     * port, the lowest-index GID entry equal to {@code gid} on a RoCE port. RDMA_NL_LS path queries
     * name no namespace (sa_query.c ib_nl_set_path_rec_attrs), so their policy infers it here.
     *
     * @param ip our address when one is known (it breaks a tie between IPoIB children that share a
     *     P_Key, the L3 pass); null otherwise, and then a tie gives no net device
     */
    public static NetdevLookup netdevFor(
            HostState state, String device, int port, Gid gid, int pkey, java.net.InetAddress ip) {
        int ipVersion = ip == null ? 0 : ip instanceof java.net.Inet4Address ? 4 : 6;
        PacketMeta meta = new PacketMeta(new IngressKey(device, port, gid.lo(), pkey), NetworkType.IB, gid, gid, null,
                pkey, pkey, 0, 0, ipVersion, ip, null, 0, OptionalInt.empty(), null, false, 0, null, null);
        return new Walk(state, meta, ResolverMode.KERNEL, true).netdevOnly();
    }

    /**
     * The answer of {@link #netdevFor}.
     *
     * @param netdev the net device, or null when none matches or the match is ambiguous
     * @param netns the net device's namespace, or null with it
     */
    public record NetdevLookup(LinkRef netdev, NetnsId netns, List<TraceStep> trace) {
        public NetdevLookup {
            trace = List.copyOf(trace);
        }
    }

    /** How many uppers a trace step lists as passed over; the rest are only counted by the picture's caption. */
    public static final int TURNED_DOWN_KEPT = 32;
}
