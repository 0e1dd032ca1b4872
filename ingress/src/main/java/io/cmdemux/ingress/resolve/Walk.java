package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.netdev.Link;
import java.util.List;
import java.util.Optional;

/**
 * One resolution, step by step in the kernel's order (docs/ARCHITECTURE.md §4): the port, ib_cm's
 * GID match and listener, the rdma_cm header, the net device (by the kernel's rules or the
 * netstack's walk), its checks, the namespace and its bind list, the listener.
 */
final class Walk extends WalkBase {
    Walk(HostState state, PacketMeta meta, ResolverMode mode, boolean tracing) {
        super(state, meta, mode, tracing);
    }

    /** What the decision carries: the steps written, or a trace written when first read. */
    private List<TraceStep> trace() {
        return tracing ? trace : new RenderedOnDemand(state, meta, mode);
    }

    private Decision drop(Decision.Drop kind, String reason) {
        return new Decision(
                Decision.Outcome.DROP, null, reason, kind, null, null, null, mode, trace(), topo.generation());
    }

    private Decision reject(int reason, LinkRef netdev, NetnsId ns) {
        if (meta.sidr()) {
            // cm_sidr_req_handler: no listener → IB_SIDR_UNSUPPORTED; a failing cma handler →
            // cm_reject_sidr_req(IB_SIDR_REJECT)
            int status = reason == Decision.REJ_INVALID_SERVICE_ID ? Decision.SIDR_UNSUPPORTED : Decision.SIDR_REJECT;
            step("sidr-rep", "cm_reject_sidr_req", "a SIDR REQ is answered with a SIDR_REP, not a REJ", List.of(),
                    "status " + status,
                    status == Decision.SIDR_UNSUPPORTED
                            ? "IB_SIDR_UNSUPPORTED: no listener for the service ID"
                            : "IB_SIDR_REJECT");
            return new Decision(
                    Decision.Outcome.REJECT, status, null, null, netdev, ns, null, mode, trace(), topo.generation());
        }
        return new Decision(
                Decision.Outcome.REJECT, reason, null, null, netdev, ns, null, mode, trace(), topo.generation());
    }

    /** {@link Resolver#netdevFor}: the net device alone, without ib_cm and without a listener. */
    Resolver.NetdevLookup netdevOnly() {
        IngressKey key = meta.key();
        Optional<RdmaPort> portOpt = state.rdma().port(key.device(), key.port());
        if (portOpt.isEmpty()) {
            step("ingress-port", "ib_device lookup", key.device() + " port " + key.port(),
                    state.rdma().devices().stream().map(RdmaDevice::name).toList(), null,
                    "no such RDMA device or port");
            return new Resolver.NetdevLookup(null, null, trace);
        }
        RdmaPort port = portOpt.get();
        LinkRef netdev;
        if (port.roce()) {
            List<GidEntry> holders = port.entriesFor(meta.ourGid());
            GidEntry hit = holders.isEmpty() ? null : holders.get(0);
            netdev = hit == null ? null : hit.ndev();
            step("net-dev", "rdma_find_gid_by_port", "GID " + meta.ourGid(), List.of(),
                    netdev == null ? null : linkName(netdev),
                    hit == null
                            ? "no GID entry holds this GID"
                            : "the ndev of the lowest index holding it (index " + hit.index() + ")");
        } else {
            netdev = new KernelNetdev(this).ipoibNetdev(port);
        }
        if (netdev == null || topo.link(netdev) == null) {
            return new Resolver.NetdevLookup(null, null, trace);
        }
        return new Resolver.NetdevLookup(netdev, netdev.netns(), trace);
    }

    Decision run() {
        IngressKey key = meta.key();
        Optional<RdmaDevice> device = state.rdma().device(key.device());
        Optional<RdmaPort> portOpt = device.flatMap(d -> d.port(key.port()));
        if (portOpt.isEmpty()) {
            step("ingress-port", "ib_device lookup", key.device() + " port " + key.port(),
                    state.rdma().devices().stream().map(RdmaDevice::name).toList(), null,
                    "no such RDMA device or port");
            return drop(Decision.Drop.NO_PORT, "no RDMA port " + key.device() + "/" + key.port() + " on this host");
        }
        RdmaPort port = portOpt.get();
        arrived(port);

        // 1. RoCE: the packet must match a GID entry, and ib_cm must be able to answer through its
        // net device, or cm_req_handler drops the request before anything else.
        GidEntry gidEntry = null;
        if (port.roce()) {
            KernelNetdev kernel = new KernelNetdev(this);
            gidEntry = kernel.matchGid(port);
            if (gidEntry == null) {
                return drop(Decision.Drop.NO_GID,
                        "no GID entry on " + key.device() + "/" + key.port() + " matches " + meta.dgid() + " ("
                                + meta.networkType().gidType().text() + vlanText() + "); the kernel sends nothing");
            }
            String unreachable = kernel.answerRoute(gidEntry);
            if (unreachable != null) {
                return drop(Decision.Drop.NO_ROUTE, unreachable);
            }
        }

        // 2. ib_cm: is anyone listening on this service ID on this device? Can the REQ's path be used?
        Optional<PortSpace> ps = meta.portSpace();
        if (!ibCmListens(device.get(), ps)) {
            return reject(Decision.REJ_INVALID_SERVICE_ID, null, null);
        }
        if (gidEntry != null && !meta.sidr() && !new KernelNetdev(this).pathRoute(gidEntry)) {
            return reject(Decision.REJ_INVALID_GID, null, null);
        }

        // 3. The rdma_cm header, and the net device it leads to.
        if (meta.cmaVersion() != 0) {
            step("cma-header", "cma_save_ip_info", "cma_version " + meta.cmaVersion(), List.of(), null,
                    "cma_version must be 0: -EINVAL, the listener's handler fails and ib_cm sends REJ 28");
            return reject(Decision.REJ_CONSUMER_DEFINED, null, null);
        }
        LinkRef netdev = null;
        if (meta.afIb()) {
            step("cma-header", "cma_get_net_dev / cma_save_ip_info", "IP version nibble " + meta.ipVersion(), List.of(),
                    null, "not 4 or 6: -EAFNOSUPPORT, which cma_ib_id_from_event takes as an AF_IB request with no "
                            + "net device; the host namespace decides");
        } else {
            if (tracing) {
                step("cma-header", "cma_get_net_dev / cma_save_ip_info",
                        "IPv" + meta.ipVersion() + " " + text(meta.srcIp()) + " -> " + text(meta.dstIp()) + ":"
                                + meta.port(),
                        List.of(), null,
                        "an IP request: the header is read in every port space"
                                + ps.map(p -> ", " + p.kernelName() + " too").orElse(""));
            }
            if (mode == ResolverMode.KERNEL) {
                netdev = new KernelNetdev(this).kernelNetdev(port, gidEntry);
            } else {
                NetstackWalk.Rx rx = new NetstackWalk(this).netdev(port);
                if (rx.dropReason() != null) {
                    return drop(Decision.Drop.NETSTACK, rx.dropReason());
                }
                netdev = rx.dev();
            }
            if (netdev == null) {
                return reject(Decision.REJ_CONSUMER_DEFINED, null, null);
            }
            Decision refused = checkNetdev(netdev);
            if (refused != null) {
                return refused;
            }
        }

        // 4. The namespace, its bind list, and the listener in it.
        return listenerIn(netdev, device.get(), port, ps);
    }

    /** The namespace the final net device leads to (the host's without one), its bind list and listener. */
    private Decision listenerIn(LinkRef netdev, RdmaDevice device, RdmaPort port, Optional<PortSpace> ps) {
        NetnsId nsId = netdev != null ? netdev.netns() : topo.host();
        String nsName = null;
        if (tracing) {
            NetnsState ns = topo.namespace(nsId);
            nsName = ns == null ? nsId.toString() : ns.displayName();
            step("netns", "cma_ps_find",
                    netdev != null ? "dev_net(" + linkName(netdev) + ")" : "no net device: init_net", List.of(), nsName,
                    netdev != null
                            ? "the namespace of the final net device"
                            : "AF_IB requests belong to the host namespace",
                    new TraceRef.Namespace(nsId), List.of());
        }
        if (ps.isEmpty()) {
            step("bind-list", "cma_ps_find", "service ID 0x" + Long.toHexString(meta.serviceId()), List.of(), null,
                    "not an rdma_cm port space");
            return reject(Decision.REJ_CONSUMER_DEFINED, netdev, nsId);
        }
        List<Listener> bindList = state.listeners().bindList(nsId, ps.get(), meta.port());
        if (bindList.isEmpty()) {
            if (tracing) {
                step("bind-list", "cma_ps_find", ps.get().kernelName() + " port " + meta.port() + " in " + nsName,
                        List.of(), null, "nobody listens there: cma_find_listener gets no bind list, -EINVAL, REJ 28");
            }
            return reject(Decision.REJ_CONSUMER_DEFINED, netdev, nsId);
        }
        Listener l = new ListenerMatch(this).find(bindList, device, port, netdev, ps.get(), nsName);
        if (l == null) {
            return reject(Decision.REJ_CONSUMER_DEFINED, netdev, nsId);
        }
        return new Decision(
                Decision.Outcome.DELIVER, null, null, null, netdev, nsId, l, mode, trace(), topo.generation());
    }

    /** The first steps of a trace: where the request came in, and a P_Key the kernel only warns about. */
    private void arrived(RdmaPort port) {
        if (!tracing) {
            return;
        }
        IngressKey key = meta.key();
        step("ingress-port", "cm_recv_handler",
                key.device() + " port " + key.port() + (port.roce() ? " (RoCE)" : " (InfiniBand)") + ", P_Key 0x"
                        + Integer.toHexString(meta.pkey()) + ", service ID 0x" + Long.toHexString(meta.serviceId()),
                List.of(), key.device() + "/" + key.port(), "the request arrived here",
                new TraceRef.Port(key.device(), key.port()), List.of());
        if (meta.bthPkey() != meta.pkey()) {
            step("pkey-mismatch", "cma_save_req_info", "BTH P_Key 0x" + Integer.toHexString(meta.bthPkey())
                    + " vs REQ P_Key 0x" + Integer.toHexString(meta.pkey()), List.of(), null,
                    "the kernel only warns (pr_warn_ratelimited) and goes on with the REQ's P_Key");
        }
    }

    /**
     * cm_match_req / cm_find_listen: whether ib_cm has a listener for the service ID on this device, in any namespace.
     */
    private boolean ibCmListens(RdmaDevice device, Optional<PortSpace> ps) {
        Listener anyListener = ps.isEmpty() ? null
                : state.listeners().firstListening(ps.get(), meta.port(), l -> deviceUsable(device, l));
        if (tracing) {
            step("ib-cm-listen", "cm_match_req / cm_find_listen",
                    "service ID 0x" + Long.toHexString(meta.serviceId())
                            + (ps.map(p -> " = " + p.kernelName() + " port " + meta.port())
                                    .orElse(" (not an rdma_cm port space)")),
                    List.of(), anyListener == null ? null : describe(anyListener),
                    anyListener == null
                            ? "no namespace listens on this service ID on " + device.name()
                                    + ": REJ 8 (invalid service ID)"
                            : "an ib_cm listener exists for this service ID on this device");
        }
        return anyListener != null;
    }

    /** The net device must still exist, be IFF_UP and pass validate_net_dev; a refusal, or null when it does. */
    private Decision checkNetdev(LinkRef netdev) {
        Link l = topo.link(netdev);
        NetnsState ns = topo.namespace(netdev.netns());
        if (l == null || ns == null) {
            step("net-dev", "dev_get_by_index", netdev.toString(), List.of(), null,
                    "the net device is gone from the topology");
            return reject(Decision.REJ_CONSUMER_DEFINED, null, null);
        }
        if (!l.up()) {
            step("iff-up", "cma_ib_id_from_event", l.name() + " in " + ns.displayName(), List.of(), null,
                    l.name() + " is not IFF_UP: -EHOSTUNREACH, REJ 28");
            return reject(Decision.REJ_CONSUMER_DEFINED, netdev, netdev.netns());
        }
        RouteCheck.Result rc = RouteCheck.validate(ns, l, meta.dstIp(), meta.srcIp(), tracing);
        if (tracing) {
            step("validate-net-dev", "validate_net_dev",
                    "route from " + text(meta.dstIp()) + " to " + text(meta.srcIp()) + " with oif " + l.name() + " in "
                            + ns.displayName(),
                    List.of(), rc.ok() ? l.name() : null, rc.why(), new TraceRef.Netdev(netdev), List.of());
        }
        return rc.ok() ? null : reject(Decision.REJ_CONSUMER_DEFINED, netdev, netdev.netns());
    }
}
