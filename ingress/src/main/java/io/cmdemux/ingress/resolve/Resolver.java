package io.cmdemux.ingress.resolve;

import io.cmdemux.ingress.wire.PortSpace;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.net.Inet6Address;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Resolver.resolve(state, meta, mode) → Decision: a pure function. KERNEL mode follows the Linux
 * RDMA CM step by step (cm.c cm_req_handler, cma.c cma_ib_id_from_event, ipoib_main.c
 * ipoib_get_net_dev_by_params); NETSTACK mode walks the synthesised packet up the receive path.
 * Each step lands in the decision's trace with the kernel function it mirrors.
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
    public static NetdevLookup netdevFor(HostState state, String device, int port, Gid gid, int pkey, java.net.InetAddress ip) {
        int ipVersion = ip == null ? 0 : ip instanceof java.net.Inet4Address ? 4 : 6;
        PacketMeta meta = new PacketMeta(new IngressKey(device, port, gid.lo(), pkey), NetworkType.IB, gid, gid, null,
                pkey, pkey, 0, 0, ipVersion, ip, null, 0, OptionalInt.empty(), null, false, 0, null);
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

    /**
     * One resolution. With {@code tracing} it writes each step down as it goes; without, it only
     * answers, and every piece of text that feeds nothing but the trace is left unwritten. Both
     * take the same branches, so the answer never depends on whether the trace is written.
     */
    private static final class Walk {
        private final HostState state;
        private final TopologySnapshot topo;
        private final PacketMeta meta;
        private final ResolverMode mode;
        private final boolean tracing;
        private final List<TraceStep> trace;

        Walk(HostState state, PacketMeta meta, ResolverMode mode, boolean tracing) {
            this.state = state;
            this.topo = state.topology();
            this.meta = meta;
            this.mode = mode;
            this.tracing = tracing;
            this.trace = tracing ? new ArrayList<>() : List.of();
        }

        /** What the decision carries: the steps written, or a trace written when first read. */
        private List<TraceStep> trace() {
            return tracing ? trace : new RenderedOnDemand(state, meta, mode);
        }

        // Callers on the common path test {@code tracing} first, so that the text is not even built.
        private void step(String step, String fn, String detail, List<String> candidates, String chosen, String why) {
            if (tracing) {
                trace.add(new TraceStep(step, fn, detail, candidates, chosen, why));
            }
        }

        /** A step that moves the walk to {@code at} (null: it stays) and chose among {@code options}. */
        private void step(String step, String fn, String detail, List<String> candidates, String chosen, String why, TraceRef at,
                List<TraceCandidate> options) {
            if (tracing) {
                trace.add(new TraceStep(step, fn, detail, candidates, chosen, why, at, options));
            }
        }

        private Decision drop(String reason, LinkRef netdev) {
            return new Decision(Decision.Outcome.DROP, null, reason, netdev, netdev == null ? null : netdev.netns(), null, mode, trace(), topo.generation());
        }

        private Decision reject(int reason, LinkRef netdev, NetnsId ns) {
            if (meta.sidr()) {
                // cm_sidr_req_handler: no listener → IB_SIDR_UNSUPPORTED; a failing cma handler → cm_reject_sidr_req(IB_SIDR_REJECT)
                int status = reason == Decision.REJ_INVALID_SERVICE_ID ? Decision.SIDR_UNSUPPORTED : Decision.SIDR_REJECT;
                step("sidr-rep", "cm_reject_sidr_req", "a SIDR REQ is answered with a SIDR_REP, not a REJ", List.of(), "status " + status,
                        status == Decision.SIDR_UNSUPPORTED ? "IB_SIDR_UNSUPPORTED: no listener for the service ID" : "IB_SIDR_REJECT");
                return new Decision(Decision.Outcome.REJECT, status, null, netdev, ns, null, mode, trace(), topo.generation());
            }
            return new Decision(Decision.Outcome.REJECT, reason, null, netdev, ns, null, mode, trace(), topo.generation());
        }

        NetdevLookup netdevOnly() {
            IngressKey key = meta.key();
            Optional<RdmaPort> portOpt = state.rdma().port(key.device(), key.port());
            if (portOpt.isEmpty()) {
                step("ingress-port", "ib_device lookup", key.device() + " port " + key.port(),
                        state.rdma().devices().stream().map(RdmaDevice::name).toList(), null, "no such RDMA device or port");
                return new NetdevLookup(null, null, trace);
            }
            RdmaPort port = portOpt.get();
            LinkRef netdev;
            if (port.roce()) {
                List<GidEntry> holders = port.entriesFor(meta.ourGid());
                GidEntry hit = holders.isEmpty() ? null : holders.get(0);
                netdev = hit == null ? null : hit.ndev();
                step("net-dev", "rdma_find_gid_by_port", "GID " + meta.ourGid(), List.of(), netdev == null ? null : linkName(netdev),
                        hit == null ? "no GID entry holds this GID" : "the ndev of the lowest index holding it (index " + hit.index() + ")");
            } else {
                netdev = ipoibNetdev(port);
            }
            if (netdev == null || topo.link(netdev) == null) {
                return new NetdevLookup(null, null, trace);
            }
            return new NetdevLookup(netdev, netdev.netns(), trace);
        }

        Decision run() {
            IngressKey key = meta.key();
            Optional<RdmaDevice> device = state.rdma().device(key.device());
            Optional<RdmaPort> portOpt = device.flatMap(d -> d.port(key.port()));
            if (portOpt.isEmpty()) {
                step("ingress-port", "ib_device lookup", key.device() + " port " + key.port(),
                        state.rdma().devices().stream().map(RdmaDevice::name).toList(), null, "no such RDMA device or port");
                return drop("no RDMA port " + key.device() + "/" + key.port() + " on this host", null);
            }
            RdmaPort port = portOpt.get();
            if (tracing) {
                step("ingress-port", "cm_recv_handler", key.device() + " port " + key.port() + (port.roce() ? " (RoCE)" : " (InfiniBand)")
                        + ", P_Key 0x" + Integer.toHexString(meta.pkey()) + ", service ID 0x" + Long.toHexString(meta.serviceId()),
                        List.of(), key.device() + "/" + key.port(), "the request arrived here", new TraceRef.Port(key.device(), key.port()), List.of());
            }
            if (tracing && meta.bthPkey() != meta.pkey()) {
                step("pkey-mismatch", "cma_save_req_info", "BTH P_Key 0x" + Integer.toHexString(meta.bthPkey())
                        + " vs REQ P_Key 0x" + Integer.toHexString(meta.pkey()), List.of(), null,
                        "the kernel only warns (pr_warn_ratelimited) and goes on with the REQ's P_Key");
            }

            // 1. RoCE: the packet must match a GID entry, or cm_req_handler drops it before anything else.
            GidEntry gidEntry = null;
            if (port.roce()) {
                gidEntry = matchGid(port);
                if (gidEntry == null) {
                    return drop("no GID entry on " + key.device() + "/" + key.port() + " matches " + meta.dgid()
                            + " (" + meta.networkType().gidType().text() + vlanText() + "); the kernel sends nothing", null);
                }
            }

            // 2. ib_cm: is anyone listening on this service ID on this device?
            Optional<PortSpace> ps = meta.portSpace();
            Listener anyListener = ps.isEmpty() ? null
                    : state.listeners().firstListening(ps.get(), meta.port(), l -> deviceUsable(device.get(), l));
            if (tracing) {
                step("ib-cm-listen", "cm_match_req / cm_find_listen",
                        "service ID 0x" + Long.toHexString(meta.serviceId()) + (ps.map(p -> " = " + p.kernelName() + " port " + meta.port()).orElse(" (not an rdma_cm port space)")),
                        List.of(), anyListener == null ? null : describe(anyListener),
                        anyListener == null ? "no namespace listens on this service ID on " + key.device() + ": REJ 8 (invalid service ID)"
                                : "an ib_cm listener exists for this service ID on this device");
            }
            if (anyListener == null) {
                return reject(Decision.REJ_INVALID_SERVICE_ID, null, null);
            }

            // 3. The rdma_cm header.
            if (meta.cmaVersion() != 0) {
                step("cma-header", "cma_save_ip_info", "cma_version " + meta.cmaVersion(), List.of(), null,
                        "cma_version must be 0: -EINVAL, the listener's handler fails and ib_cm sends REJ 28");
                return reject(Decision.REJ_CONSUMER_DEFINED, null, null);
            }

            LinkRef netdev = null;
            if (meta.afIb()) {
                step("cma-header", "cma_get_net_dev / cma_save_ip_info", "IP version nibble " + meta.ipVersion(), List.of(), null,
                        "not 4 or 6: -EAFNOSUPPORT, which cma_ib_id_from_event takes as an AF_IB request with no net device; the host namespace decides");
            } else {
                if (tracing) {
                    step("cma-header", "cma_get_net_dev / cma_save_ip_info", "IPv" + meta.ipVersion() + " " + text(meta.srcIp())
                            + " -> " + text(meta.dstIp()) + ":" + meta.port(), List.of(), null,
                            "an IP request: the header is read in every port space" + ps.map(p -> ", " + p.kernelName() + " too").orElse(""));
                }
                netdev = mode == ResolverMode.KERNEL ? kernelNetdev(port, gidEntry) : netstackNetdev(port);
                if (netdev == null) {
                    if (mode == ResolverMode.NETSTACK && lastDropReason != null) {
                        return drop(lastDropReason, null);
                    }
                    return reject(Decision.REJ_CONSUMER_DEFINED, null, null);
                }
                Link l = topo.link(netdev);
                NetnsState ns = topo.namespace(netdev.netns());
                if (l == null || ns == null) {
                    step("net-dev", "dev_get_by_index", netdev.toString(), List.of(), null, "the net device is gone from the topology");
                    return reject(Decision.REJ_CONSUMER_DEFINED, null, null);
                }
                if (!l.up()) {
                    step("iff-up", "cma_ib_id_from_event", l.name() + " in " + ns.displayName(), List.of(), null,
                            l.name() + " is not IFF_UP: -EHOSTUNREACH, REJ 28");
                    return reject(Decision.REJ_CONSUMER_DEFINED, netdev, netdev.netns());
                }
                RouteCheck.Result rc = RouteCheck.validate(ns, l, meta.dstIp(), meta.srcIp(), tracing);
                if (tracing) {
                    step("validate-net-dev", "validate_net_dev", "route from " + text(meta.dstIp()) + " to " + text(meta.srcIp())
                            + " with oif " + l.name() + " in " + ns.displayName(), List.of(), rc.ok() ? l.name() : null, rc.why(),
                            new TraceRef.Netdev(netdev), List.of());
                }
                if (!rc.ok()) {
                    return reject(Decision.REJ_CONSUMER_DEFINED, netdev, netdev.netns());
                }
            }

            // 4. The namespace and its bind list.
            NetnsId nsId = netdev != null ? netdev.netns() : topo.host();
            String nsName = null;
            if (tracing) {
                NetnsState ns = topo.namespace(nsId);
                nsName = ns == null ? nsId.toString() : ns.displayName();
                step("netns", "cma_ps_find", netdev != null ? "dev_net(" + linkName(netdev) + ")" : "no net device: init_net",
                        List.of(), nsName, netdev != null ? "the namespace of the final net device" : "AF_IB requests belong to the host namespace",
                        new TraceRef.Namespace(nsId), List.of());
            }
            if (ps.isEmpty()) {
                step("bind-list", "cma_ps_find", "service ID 0x" + Long.toHexString(meta.serviceId()), List.of(), null, "not an rdma_cm port space");
                return reject(Decision.REJ_CONSUMER_DEFINED, netdev, nsId);
            }
            List<Listener> bindList = state.listeners().bindList(nsId, ps.get(), meta.port());
            if (bindList.isEmpty()) {
                if (tracing) {
                    step("bind-list", "cma_ps_find", ps.get().kernelName() + " port " + meta.port() + " in " + nsName, List.of(), null,
                            "nobody listens there: cma_find_listener gets no bind list, -EINVAL, REJ 28");
                }
                return reject(Decision.REJ_CONSUMER_DEFINED, netdev, nsId);
            }

            // 5. cma_find_listener: newest bind first.
            List<String> tried = tracing ? new ArrayList<>() : null;
            List<TraceCandidate> triedRefs = tracing ? new ArrayList<>() : null;
            for (Listener l : bindList) {
                String why = listenerMismatch(l, device.get(), netdev);
                if (tracing) {
                    tried.add(describe(l) + (why == null ? "" : " — " + why));
                    triedRefs.add(new TraceCandidate(new TraceRef.Listen(l), why));
                    if (why == null) {
                        step("listener", "cma_find_listener", ps.get().kernelName() + " port " + meta.port() + " in " + nsName, tried, describe(l),
                                "the most recently bound listener whose address matches the header (cma_match_private_data) and whose device and net device match (cma_match_net_dev)",
                                new TraceRef.Listen(l), triedRefs);
                    }
                }
                if (why == null) {
                    // The first listener that matches is the one: a check that fails after this rejects, it tries no other.
                    if (!qpTypeMatches(l) || !acquiresDevice(port, netdev, l)) {
                        return reject(Decision.REJ_CONSUMER_DEFINED, netdev, nsId);
                    }
                    return new Decision(Decision.Outcome.DELIVER, null, null, netdev, nsId, l, mode, trace(), topo.generation());
                }
            }
            if (tracing) {
                step("listener", "cma_find_listener", ps.get().kernelName() + " port " + meta.port() + " in " + nsName, tried, null,
                        "no listener matches: -EINVAL, REJ 28", null, triedRefs);
            }
            return reject(Decision.REJ_CONSUMER_DEFINED, netdev, nsId);
        }

        // ---- RoCE ----

        /**
         * ib_init_ah_attr_from_wc → get_sgid_index_from_eth → rdma_find_gid_by_filter: the lowest
         * index whose GID and type match and whose ndev is a vlan device exactly when the frame was
         * tagged, with the same VID.
         */
        private GidEntry matchGid(RdmaPort port) {
            List<String> cands = tracing ? new ArrayList<>() : null;
            List<TraceCandidate> refs = tracing ? new ArrayList<>() : null;
            GidEntry chosen = null;
            for (GidEntry e : port.entriesFor(meta.dgid())) {
                boolean typeOk = e.type() == meta.networkType().gidType();
                boolean vlanOk = meta.vlan().isPresent() == e.vlanId().isPresent()
                        && (meta.vlan().isEmpty() || meta.vlan().getAsInt() == e.vlanId().getAsInt());
                if (!tracing) {
                    if (typeOk && vlanOk) {
                        return e; // the lowest matching index; the rest only shade the trace
                    }
                    continue;
                }
                String why = null;
                if (!typeOk) {
                    why = "type " + e.type().text();
                } else if (!vlanOk) {
                    why = e.vlanId().isPresent() ? "ndev is vlan " + e.vlanId().getAsInt() : "ndev is not a vlan device";
                }
                cands.add("index " + e.index() + " ndev " + linkName(e.ndev()) + (why == null ? "" : " — " + why));
                TraceRef ref = new TraceRef.GidIndex(meta.key().device(), meta.key().port(), e.index(), e.ndev());
                if (why == null && chosen == null) {
                    chosen = e;
                    refs.add(TraceCandidate.ok(ref));
                } else {
                    refs.add(new TraceCandidate(ref, why != null ? why : "shadowed by index " + chosen.index() + ": the lowest matching index wins"));
                }
            }
            if (!tracing) {
                return null;
            }
            step("gid-match", "ib_init_ah_attr_from_wc / rdma_find_gid_by_filter",
                    "destination " + meta.dgid() + ", " + meta.networkType().gidType().text() + vlanText(), cands,
                    chosen == null ? null : "index " + chosen.index() + " (ndev " + linkName(chosen.ndev()) + ")",
                    chosen == null ? "no entry matches: cm_req_handler fails in cm_init_av_for_response and sends nothing"
                            : "the lowest matching index wins" + (cands.size() > 1 ? "; the others are shadowed" : ""),
                    // In netstack mode the GID match is only the port's gate: the walk starts again at the port's netdev.
                    chosen == null || mode != ResolverMode.KERNEL ? null
                            : new TraceRef.GidIndex(meta.key().device(), meta.key().port(), chosen.index(), chosen.ndev()), refs);
            return chosen;
        }

        private LinkRef kernelNetdev(RdmaPort port, GidEntry gidEntry) {
            if (port.roce()) {
                LinkRef ndev = gidEntry.ndev();
                if (tracing) {
                    step("net-dev", "roce_get_net_dev_by_cm_event", "gid_attr ndev of index " + gidEntry.index(), List.of(),
                            ndev == null ? null : linkName(ndev), ndev == null ? "the GID entry has no net device: -ENODEV, REJ 28" : "the matched GID entry's ndev",
                            ndev == null ? null : new TraceRef.Netdev(ndev), List.of());
                }
                return ndev;
            }
            return ipoibNetdev(port);
        }

        // ---- IB: ipoib_get_net_dev_by_params ----

        private LinkRef ipoibNetdev(RdmaPort port) {
            OptionalInt pkeyIndex = port.pkeys().indexOf(meta.pkey());
            if (tracing) {
                step("pkey-index", "ib_find_cached_pkey", "P_Key 0x" + Integer.toHexString(meta.pkey()),
                        port.pkeys().pkeys().stream().map(p -> String.format("0x%04x", p)).toList(),
                        pkeyIndex.isPresent() ? "index " + pkeyIndex.getAsInt() : null,
                        pkeyIndex.isPresent() ? "low 15 bits compared, full membership preferred" : "P_Key not in the table: no net device, REJ 28",
                        pkeyIndex.isPresent() ? new TraceRef.PkeyIndex(meta.key().device(), meta.key().port(), pkeyIndex.getAsInt()) : null, List.of());
            }
            if (pkeyIndex.isEmpty()) {
                return null;
            }
            List<LinkRef> order = ipoibOrder(port);
            // L2: pkey index and GID. Children share the parent's GID, so this is often ambiguous.
            List<String> l2 = tracing ? new ArrayList<>() : null;
            List<TraceCandidate> l2Refs = tracing ? new ArrayList<>() : null;
            List<LinkRef> l2Matches = new ArrayList<>();
            for (LinkRef d : order) {
                Link l = topo.link(d);
                boolean pk = ipoibPkeyIndex(port, l).equals(pkeyIndex);
                boolean gid = meta.ourGid() == null || meta.ourGid().equals(ipoibGid(l));
                if (tracing) {
                    String no = (pk ? "" : " — P_Key index differs") + (gid ? "" : " — GID differs");
                    l2.add(l.name() + " pkey 0x" + Integer.toHexString(ipoibPkey(l)) + no);
                    l2Refs.add(new TraceCandidate(new TraceRef.Netdev(d), no.isEmpty() ? null : no.substring(3)));
                }
                if (pk && gid) {
                    l2Matches.add(d);
                    if (l2Matches.size() > 1) {
                        break;
                    }
                }
            }
            if (l2Matches.size() == 1) {
                LinkRef dev = l2Matches.get(0);
                LinkRef result = topo.masterOf(dev).orElse(dev);
                if (tracing) {
                    step("ipoib-l2", "ipoib_match_gid_pkey_addr (L2)", "P_Key index " + pkeyIndex.getAsInt() + ", GID " + meta.ourGid(), l2,
                            linkName(result), result.equals(dev) ? "exactly one IPoIB device matches" : "exactly one matches; its bonding master is returned (ipoib_get_master_net_dev)",
                            new TraceRef.Netdev(result), l2Refs);
                }
                return result;
            }
            if (l2Matches.isEmpty()) {
                if (tracing) {
                    step("ipoib-l2", "ipoib_match_gid_pkey_addr (L2)", "P_Key index " + pkeyIndex.getAsInt() + ", GID " + meta.ourGid(), l2, null,
                            "no IPoIB device matches: no net device, REJ 28", null, l2Refs);
                }
                return null;
            }
            if (tracing) {
                step("ipoib-l2", "ipoib_match_gid_pkey_addr (L2)", "P_Key index " + pkeyIndex.getAsInt() + ", GID " + meta.ourGid(), l2, null,
                        "two or more match: try the destination IP (L3 pass)", null, l2Refs);
            }
            // L3: the first matching device, or upper of it at any depth, that owns the IP in its own namespace.
            List<String> l3 = tracing ? new ArrayList<>() : null;
            List<TraceCandidate> l3Refs = tracing ? new ArrayList<>() : null;
            LinkRef first = null;
            int matches = 0;
            for (LinkRef d : order) {
                Link l = topo.link(d);
                if (!ipoibPkeyIndex(port, l).equals(pkeyIndex) || !(meta.ourGid() == null || meta.ourGid().equals(ipoibGid(l)))) {
                    continue;
                }
                LinkRef owner = ownsIp(d) ? d : firstUpperOwning(d);
                if (tracing) {
                    l3.add(l.name() + (owner == null ? " — neither it nor an upper holds " + text(meta.dstIp()) : " — " + linkName(owner) + " holds " + text(meta.dstIp())));
                    l3Refs.add(new TraceCandidate(new TraceRef.Netdev(owner == null ? d : owner), owner == null ? "neither it nor an upper holds " + text(meta.dstIp())
                            : first != null ? "holds it too, but the first in the list wins (duplicate IP address detected)" : null));
                }
                if (owner != null) {
                    matches++;
                    if (first == null) {
                        first = owner;
                    }
                    if (matches > 1) {
                        break;
                    }
                }
            }
            if (tracing) {
                step("ipoib-l3", "ipoib_get_net_dev_match_addr (L3)", "destination " + text(meta.dstIp()), l3, first == null ? null : linkName(first),
                        first == null ? "no device holds the address: no net device, REJ 28"
                                : matches > 1 ? "duplicate IP address detected: the kernel warns and takes the first" : "exactly one holds the address",
                        first == null ? null : new TraceRef.Netdev(first), l3Refs);
            }
            return first;
        }

        /** Parents on the port in list order, each followed depth-first by its IPoIB children. */
        private List<LinkRef> ipoibOrder(RdmaPort port) {
            List<LinkRef> out = new ArrayList<>();
            for (LinkRef p : port.ipoibParents()) {
                addWithChildren(p, out, new HashSet<>());
            }
            return out;
        }

        private void addWithChildren(LinkRef d, List<LinkRef> out, Set<LinkRef> seen) {
            if (!seen.add(d) || topo.link(d) == null) {
                return;
            }
            out.add(d);
            List<LinkRef> kids = new ArrayList<>();
            for (LinkRef c : topo.childrenOf(d)) {
                Link l = topo.link(c);
                if (l != null && l.info() instanceof LinkInfo.Ipoib) {
                    kids.add(c);
                }
            }
            // child_intfs is in creation order; ifindexes grow with creation.
            kids.sort(Comparator.comparingInt(LinkRef::ifindex));
            for (LinkRef c : kids) {
                addWithChildren(c, out, seen);
            }
        }

        private OptionalInt ipoibPkeyIndex(RdmaPort port, Link l) {
            return port.pkeys().indexOf(ipoibPkey(l));
        }

        private static int ipoibPkey(Link l) {
            return l.info() instanceof LinkInfo.Ipoib i ? i.pkey() : 0xffff;
        }

        /** The 20-byte IPoIB hardware address: 4 bytes of flags and QPN, then the GID. */
        private static Gid ipoibGid(Link l) {
            HwAddr mac = l.mac();
            if (mac == null || mac.length() != 20) {
                return Gid.ZERO;
            }
            return Gid.of(Arrays.copyOfRange(mac.bytes(), 4, 20));
        }

        /** netdev_walk_all_upper_dev_rcu: uppers depth-first, pre-order. */
        private LinkRef firstUpperOwning(LinkRef dev) {
            Deque<LinkRef> stack = new ArrayDeque<>();
            Set<LinkRef> seen = new HashSet<>();
            List<LinkRef> ups = sortedUppers(dev);
            for (int i = ups.size() - 1; i >= 0; i--) {
                stack.push(ups.get(i));
            }
            while (!stack.isEmpty()) {
                LinkRef u = stack.pop();
                if (!seen.add(u)) {
                    continue;
                }
                if (ownsIp(u)) {
                    return u;
                }
                List<LinkRef> more = sortedUppers(u);
                for (int i = more.size() - 1; i >= 0; i--) {
                    stack.push(more.get(i));
                }
            }
            return null;
        }

        private List<LinkRef> sortedUppers(LinkRef dev) {
            List<LinkRef> ups = new ArrayList<>(topo.uppersOf(dev));
            ups.sort(Comparator.comparingInt(LinkRef::ifindex));
            return ups;
        }

        /**
         * inet_confirm_addr / ipv6_chk_addr(strict): the address is on this device in its own
         * namespace; tentative IPv6 addresses do not count.
         */
        private boolean ownsIp(LinkRef dev) {
            NetnsState ns = topo.namespace(dev.netns());
            if (ns == null || meta.dstIp() == null) {
                return false;
            }
            for (Address a : ns.addresses()) { // addressesOf(ifindex), without a list per call
                if (a.ifindex() == dev.ifindex() && a.address().equals(meta.dstIp())) {
                    boolean tentative = a.address() instanceof Inet6Address && (a.flags() & (Address.IFA_F_TENTATIVE | Address.IFA_F_DADFAILED)) != 0;
                    return !tentative;
                }
            }
            return false;
        }

        // ---- netstack mode ----

        private String lastDropReason;

        /**
         * The receive path of the synthesised frame: bond (active slave only) → vlan by VID →
         * macvlan by destination MAC → ipvlan by destination IP, until no upper claims the frame;
         * then the device that owns the destination IP.
         */
        private LinkRef netstackNetdev(RdmaPort port) {
            LinkRef dev;
            if (port.roce()) {
                dev = port.netdev();
                if (dev == null || topo.link(dev) == null) {
                    step("rx-start", "netif_receive_skb", "RoCE port net device", List.of(), null, "the port has no net device");
                    return null;
                }
                if (tracing) {
                    step("rx-start", "netif_receive_skb", "frame to " + (meta.dmac() == null ? "(MAC unknown)" : meta.dmac().toString()) + vlanText(),
                            List.of(), linkName(dev), "the port's net device receives the frame", new TraceRef.Netdev(dev), List.of());
                }
            } else {
                dev = ipoibRxDevice(port);
                if (dev == null) {
                    return null;
                }
            }
            boolean vlanPending = meta.vlan().isPresent();
            for (int hop = 0; hop < 16; hop++) {
                Link l = topo.link(dev);
                Optional<LinkRef> master = topo.masterOf(dev);
                if (master.isPresent()) {
                    Link m = topo.link(master.get());
                    if (m != null && m.info() instanceof LinkInfo.Bond b) {
                        boolean active = b.activeSlave() == 0 || b.activeSlave() == dev.ifindex() || b.mode() != LinkInfo.Bond.MODE_ACTIVEBACKUP;
                        if (tracing) {
                            step("rx-bond", "bond_handle_frame", l.name() + " is a port of " + m.name() + " (" + b.modeName() + ")", List.of(),
                                    active ? m.name() : null, active ? "the bond takes the frame" : "an inactive slave in active-backup mode drops it",
                                    active ? new TraceRef.Netdev(master.get()) : null, List.of());
                        }
                        if (!active) {
                            lastDropReason = "frame arrived on inactive bond slave " + l.name();
                            return null;
                        }
                        dev = master.get();
                        continue;
                    }
                    if (m != null && "bridge".equals(m.kind())) {
                        boolean local = meta.dmac() != null && meta.dmac().equals(m.mac());
                        if (tracing) {
                            step("rx-bridge", "br_handle_frame", l.name() + " is a port of bridge " + m.name(), List.of(), local ? m.name() : null,
                                    local ? "the frame is for the bridge itself" : "the bridge forwards it to another port; no local device gets it",
                                    local ? new TraceRef.Netdev(master.get()) : null, List.of());
                        }
                        if (!local) {
                            lastDropReason = "bridged past " + m.name() + ": the frame is not for a local device";
                            return null;
                        }
                        dev = master.get();
                        continue;
                    }
                }
                if (vlanPending) {
                    LinkRef vdev = null;
                    List<String> c = tracing ? new ArrayList<>() : null;
                    List<TraceCandidate> refs = tracing ? new ArrayList<>() : null;
                    for (LinkRef k : topo.childrenOf(dev)) {
                        Link kl = topo.link(k);
                        if (kl != null && kl.info() instanceof LinkInfo.Vlan v) {
                            boolean hit = v.id() == meta.vlan().getAsInt();
                            if (tracing) {
                                c.add(kl.name() + " vid " + v.id());
                                refs.add(new TraceCandidate(new TraceRef.Netdev(k), hit ? null : "VID " + v.id()));
                            }
                            if (hit && (vdev == null || k.ifindex() < vdev.ifindex())) {
                                vdev = k;
                            }
                        }
                    }
                    if (tracing) {
                        step("rx-vlan", "vlan_do_receive", "VID " + meta.vlan().getAsInt() + " on " + l.name(), c, vdev == null ? null : linkName(vdev),
                                vdev == null ? "no vlan device has this VID: the frame is dropped" : "the vlan device with this VID takes the frame",
                                vdev == null ? null : new TraceRef.Netdev(vdev), refs);
                    }
                    if (vdev == null) {
                        lastDropReason = "no vlan device for VID " + meta.vlan().getAsInt() + " on " + l.name();
                        return null;
                    }
                    vlanPending = false;
                    dev = vdev;
                    continue;
                }
                // The rx handlers pick a child by destination MAC (macvlan) or IP (ipvlan); look those up, don't scan.
                // Untraced, the first claimant ends each scan: the rest only fill the trace.
                LinkRef next = null;
                List<String> c = tracing ? new ArrayList<>() : null;
                List<TraceCandidate> refs = tracing ? new ArrayList<>() : null;
                String how = null;
                if (meta.dmac() != null) {
                    for (LinkRef k : topo.byMac(meta.dmac())) {
                        if (next != null && !tracing) {
                            break;
                        }
                        Link kl = topo.link(k);
                        if (kl != null && kl.info() instanceof LinkInfo.Macvlan && dev.equals(topo.parentOf(k).orElse(null))) {
                            if (tracing) {
                                c.add(kl.name() + " macvlan " + kl.mac());
                                refs.add(new TraceCandidate(new TraceRef.Netdev(k), next == null ? null : "an earlier upper took the frame"));
                            }
                            if (next == null) {
                                next = k;
                                how = tracing ? "macvlan_handle_frame: destination MAC " + meta.dmac() : null;
                            }
                        }
                    }
                }
                if (next == null) {
                    for (io.cmdemux.namespaces.AddressRef owner : topo.byIp(meta.dstIp())) {
                        if (next != null && !tracing) {
                            break;
                        }
                        LinkRef child = childOnPath(owner.link(), dev);
                        Link kl = child == null ? null : topo.link(child);
                        if (kl == null) {
                            continue;
                        }
                        if (kl.info() instanceof LinkInfo.Ipvlan iv) {
                            if (tracing) {
                                c.add(kl.name() + " ipvlan " + iv.modeName());
                                refs.add(new TraceCandidate(new TraceRef.Netdev(child), next == null ? null : "an earlier upper took the frame"));
                            }
                            if (next == null) {
                                next = child;
                                how = iv.mode() == LinkInfo.Ipvlan.MODE_L2
                                        ? "ipvlan_handle_mode_l2: slaves share the master's MAC, so unicast frames are matched by IP"
                                        : "ipvlan_handle_mode_l3: the slave that holds the destination IP";
                            }
                        } else if (kl.info() instanceof LinkInfo.Macvlan && meta.dmac() == null) {
                            if (tracing) {
                                c.add(kl.name() + " macvlan " + kl.mac());
                                refs.add(new TraceCandidate(new TraceRef.Netdev(child), next == null ? null : "an earlier upper took the frame"));
                            }
                            if (next == null) {
                                next = child;
                                how = "no destination MAC known; the macvlan that holds the IP is the one ARP/ND would have named";
                            }
                        }
                    }
                }
                if (tracing) {
                    addTurnedDown(dev, refs);
                    if (next == null) {
                        step("rx-final", "__netif_receive_skb_core", "on " + l.name(), c, l.name(),
                                c.isEmpty() ? "no macvlan or ipvlan above it claims the frame; it stays on " + l.name()
                                        : "no upper claims the frame; it stays on " + l.name(),
                                new TraceRef.Netdev(dev), refs);
                    } else {
                        step("rx-upper", "rx_handler", "on " + l.name(), c, linkName(next), how, new TraceRef.Netdev(next), refs);
                    }
                }
                if (next == null) {
                    break;
                }
                dev = next;
            }
            // The frame now belongs to dev's namespace. ip_route_input delivers it locally when the address is
            // local anywhere in that namespace (Linux is a weak-host stack), not only on dev itself.
            NetnsState ns = topo.namespace(dev.netns());
            List<String> holders = tracing ? new ArrayList<>() : null;
            boolean held = false;
            if (ns != null && meta.dstIp() != null) {
                for (Address a : ns.addresses()) {
                    if (a.address().equals(meta.dstIp())) {
                        held = true;
                        if (!tracing) {
                            break;
                        }
                        Link h = ns.link(a.ifindex());
                        holders.add(h == null ? "ifindex " + a.ifindex() : h.name());
                    }
                }
            }
            if (tracing) {
                step("rx-local", "ip_route_input / ip_local_deliver", "destination " + text(meta.dstIp()) + " in the namespace of " + linkName(dev),
                        holders, !held ? null : linkName(dev),
                        !held ? "no device in that namespace holds the address: not for this host"
                                : ownsIp(dev) ? "the receiving device holds the address" : "another device of the namespace holds it; a weak-host stack delivers it anyway",
                        !held ? null : new TraceRef.Netdev(dev), List.of());
            }
            if (!held) {
                lastDropReason = "the netstack's final device " + linkName(dev) + " is in a namespace that does not hold " + text(meta.dstIp());
                return null;
            }
            return dev;
        }

        /** IB in netstack mode: the IPoIB child whose P_Key and GID the packet names, else the parent. */
        private LinkRef ipoibRxDevice(RdmaPort port) {
            List<LinkRef> order = ipoibOrder(port);
            List<String> c = tracing ? new ArrayList<>() : null;
            List<String> misses = tracing ? new ArrayList<>() : null;
            List<LinkRef> hits = new ArrayList<>();
            for (LinkRef d : order) {
                Link l = topo.link(d);
                boolean pk = (ipoibPkey(l) & 0x7fff) == (meta.pkey() & 0x7fff);
                boolean gid = meta.ourGid() == null || meta.ourGid().equals(ipoibGid(l));
                if (tracing) {
                    String no = (pk ? "" : " — P_Key differs") + (gid ? "" : " — GID differs");
                    c.add(l.name() + " pkey 0x" + Integer.toHexString(ipoibPkey(l)) + no);
                    misses.add(no.isEmpty() ? null : no.substring(3));
                }
                if (pk && gid) {
                    hits.add(d);
                }
            }
            LinkRef chosen = null;
            if (hits.size() == 1) {
                chosen = hits.get(0);
            } else if (hits.size() > 1) {
                for (LinkRef h : hits) {
                    if (ownsIpOrUpper(h)) {
                        chosen = h;
                        break;
                    }
                }
            }
            if (tracing) {
                List<TraceCandidate> refs = new ArrayList<>();
                for (int i = 0; i < order.size(); i++) {
                    LinkRef d = order.get(i);
                    String no = misses.get(i) != null ? misses.get(i)
                            : d.equals(chosen) ? null : "matches too, but neither it nor an upper holds " + text(meta.dstIp());
                    refs.add(new TraceCandidate(new TraceRef.Netdev(d), no));
                }
                step("rx-ipoib", "ipoib_ib_handle_rx_wc", "P_Key 0x" + Integer.toHexString(meta.pkey()) + ", GID " + meta.ourGid(), c,
                        chosen == null ? null : linkName(chosen),
                        chosen == null ? "no IPoIB device takes the packet" : hits.size() > 1 ? "children share the GID; the one whose stack holds the IP" : "the IPoIB device with this P_Key and GID",
                        chosen == null ? null : new TraceRef.Netdev(chosen), refs);
            }
            if (chosen == null) {
                lastDropReason = "no IPoIB device on " + meta.key().device() + "/" + meta.key().port() + " for P_Key 0x" + Integer.toHexString(meta.pkey());
            }
            return chosen;
        }

        /** The child of {@code dev} on the IFLA_LINK path from {@code owner} down to it, or null if there is none. */
        private LinkRef childOnPath(LinkRef owner, LinkRef dev) {
            LinkRef cur = owner;
            for (int i = 0; i < 8; i++) {
                Optional<LinkRef> p = topo.parentOf(cur);
                if (p.isEmpty()) {
                    return null;
                }
                if (p.get().equals(dev)) {
                    return cur;
                }
                cur = p.get();
            }
            return null;
        }

        /**
         * Uppers of dev that the rx handlers passed over, with why: at most {@link #TURNED_DOWN_KEPT}, so
         * that a port shared by a thousand pods costs the trace a bounded walk, not one string per pod.
         */
        private void addTurnedDown(LinkRef dev, List<TraceCandidate> refs) {
            Set<LinkRef> taken = new HashSet<>();
            refs.forEach(r -> taken.add(((TraceRef.Netdev) r.ref()).link()));
            int kept = 0;
            for (LinkRef k : topo.childrenOf(dev)) {
                if (kept == TURNED_DOWN_KEPT) {
                    return;
                }
                Link kl = topo.link(k);
                if (taken.contains(k) || kl == null) {
                    continue;
                }
                String why;
                if (kl.info() instanceof LinkInfo.Macvlan) {
                    why = meta.dmac() != null ? "its MAC " + kl.mac() + " is not the destination " + meta.dmac()
                            : "neither it nor an upper holds " + text(meta.dstIp());
                } else if (kl.info() instanceof LinkInfo.Ipvlan) {
                    why = "neither it nor an upper holds " + text(meta.dstIp());
                } else {
                    continue;
                }
                refs.add(new TraceCandidate(new TraceRef.Netdev(k), why));
                kept++;
            }
        }

        private boolean ownsIpOrUpper(LinkRef d) {
            return ownsIp(d) || firstUpperOwning(d) != null;
        }

        // ---- listeners ----

        /** Whether the listener's namespace may use the device (rdma_dev_access_netns). */
        private boolean deviceUsable(RdmaDevice dev, Listener l) {
            if (l.device() != null && !l.device().equals(dev.name())) {
                return false;
            }
            if (state.rdma().netnsMode() == RdmaTopology.NetnsMode.EXCLUSIVE && !dev.soft() && dev.netns() != null) {
                return dev.netns().equals(l.netns());
            }
            return true;
        }

        /** Null when the listener takes the request; else why not (cma_match_private_data, cma_match_net_dev). */
        private String listenerMismatch(Listener l, RdmaDevice dev, LinkRef netdev) {
            if (meta.afIb()) {
                if (!l.afIb()) {
                    return "an IP listener cannot take an AF_IB request";
                }
            } else if (!l.afIb()) {
                // An AF_IB listener matches any header (cma_match_private_data returns true for AF_IB).
                boolean any = l.anyAddress();
                if (!(any && !l.afonly())) {
                    if (l.ipVersion() != meta.ipVersion()) {
                        return "listens on IPv" + l.ipVersion() + ", the request is IPv" + meta.ipVersion();
                    }
                    if (!any && !l.address().equals(meta.dstIp())) {
                        return "bound to " + text(l.address()) + ", not " + text(meta.dstIp());
                    }
                }
            }
            if (!deviceUsable(dev, l)) {
                return l.device() != null ? "attached to device " + l.device() : "its namespace may not use " + dev.name() + " (exclusive netns mode)";
            }
            if (netdev != null && meta.dstIp() instanceof Inet6Address a6 && a6.isLinkLocalAddress()) {
                if (!netdev.netns().equals(l.netns())) {
                    return "IPv6 link-local: another namespace";
                }
                if (l.boundIfindex() != 0 && l.boundIfindex() != netdev.ifindex()) {
                    return "IPv6 link-local: bound to ifindex " + l.boundIfindex() + ", the request came on " + netdev.ifindex();
                }
            }
            return null;
        }

        /**
         * cma_ib_check_req_qp_type: a REQ's QP type must be the listener's, a SIDR REQ needs a UD
         * listener; otherwise cma_ib_req_handler fails with -EINVAL, ib_cm sends REJ 28 (a SIDR REP
         * with IB_SIDR_REJECT for a SIDR REQ).
         */
        private boolean qpTypeMatches(Listener l) {
            boolean ok = meta.sidr() ? l.qpType() == QpType.UD : l.qpType() == meta.qpType();
            if (tracing) {
                String req = meta.sidr() ? "a SIDR REQ (UD)" : "a REQ of QP type " + (meta.qpType() == null ? "0 (transport no rdma_cm id has)" : meta.qpType().rdmaName());
                // A check that passes stays at the listener (the picture merges it into that hop); one that fails ends the walk.
                step("qp-type", "cma_ib_check_req_qp_type", req + "; the " + l.portSpace().kernelName() + " listener is " + l.qpType().rdmaName(),
                        List.of(), ok ? describe(l) : null, ok ? "the QP types agree"
                                : "the listener's QP type is not the request's: -EINVAL, " + (meta.sidr() ? "SIDR REP IB_SIDR_REJECT" : "REJ 28"),
                        ok ? new TraceRef.Listen(l) : null, List.of());
            }
            return ok;
        }

        /**
         * cma_ib_req_handler → cma_ib_acquire_dev: the new id must find its GID on the port. On
         * RoCE that is the GID of our address (rdma_ip2gid of the header's destination) with the
         * device's default GID type and ndev = the net device (cma_validate_port, rdma_find_gid_by_port);
         * an RDMA_PS_IPOIB id needs an InfiniBand port, and an AF_IB id (an AF_IB request, or an
         * AF_IB listener: its source address has no IP) cannot find one on RoCE. A failure is
         * -EINVAL or -ENODEV: REJ 28.
         */
        private boolean acquiresDevice(RdmaPort port, LinkRef netdev, Listener l) {
            if (!port.roce()) {
                return true; // the IPoIB netdev's own GID, which ipoib_get_net_dev_by_params just matched
            }
            String why = null;
            String chosen = null;
            if (l.portSpace() == PortSpace.IPOIB) {
                why = "an RDMA_PS_IPOIB id on a RoCE port (dev_type is not ARPHRD_INFINIBAND): -EINVAL, REJ 28";
            } else if (meta.afIb() || l.afIb()) {
                why = (meta.afIb() ? "an AF_IB request" : "an AF_IB listener") + " on a RoCE port: cma_validate_port finds no GID, -ENODEV, REJ 28";
            } else {
                Gid ours = Gid.ofIp(meta.dstIp());
                GidType type = defaultGidType(port);
                GidEntry hit = null;
                for (GidEntry e : port.entriesFor(ours)) {
                    if (e.type() == type && netdev.equals(e.ndev())) {
                        hit = e;
                        break;
                    }
                }
                if (hit == null) {
                    why = "no " + type.text() + " GID " + ours + " with ndev " + linkName(netdev) + ": -ENODEV, REJ 28";
                } else if (tracing) {
                    chosen = "index " + hit.index();
                }
            }
            if (tracing) {
                step("acquire-dev", "cma_ib_acquire_dev / cma_validate_port", meta.key().device() + "/" + meta.key().port() + ", "
                        + l.portSpace().kernelName() + (meta.afIb() ? ", AF_IB" : ", our address " + text(meta.dstIp())), List.of(),
                        why == null ? chosen : null, why == null ? "the new id's GID is on the port, with the request's net device" : why,
                        why == null ? new TraceRef.Listen(l) : null, List.of());
            }
            return why == null;
        }

        /**
         * cma_add_one's default_gid_type: RoCE v2 where the port supports it (CMA_PREFERRED_ROCE_GID_TYPE),
         * else RoCE v1; configfs can change it, which no snapshot shows.
         */
        private static GidType defaultGidType(RdmaPort port) {
            for (GidEntry e : port.gids()) {
                if (e.type() == GidType.ROCE_V2) {
                    return GidType.ROCE_V2;
                }
            }
            return port.gids().isEmpty() ? GidType.ROCE_V2 : GidType.ROCE_V1;
        }

        // ---- text ----

        private String describe(Listener l) {
            NetnsState ns = topo.namespace(l.netns());
            String where = ns == null ? l.netns().toString() : ns.displayName();
            String addr = l.afIb() ? "AF_IB" : text(l.address());
            return where + " " + addr + ":" + l.port() + "/" + l.portSpace().cliName() + " " + l.qpType().rdmaName() + (l.afonly() ? " afonly" : "")
                    + (l.owner() == null ? "" : " (" + l.owner() + ")");
        }

        private String linkName(LinkRef r) {
            if (r == null) {
                return "none";
            }
            Link l = topo.link(r);
            NetnsState ns = topo.namespace(r.netns());
            return (l == null ? "ifindex " + r.ifindex() : l.name()) + "@" + (ns == null ? r.netns().toString() : ns.displayName());
        }

        private String vlanText() {
            return meta.vlan().isPresent() ? ", VLAN " + meta.vlan().getAsInt() : ", untagged";
        }

        private static String text(java.net.InetAddress a) {
            return a == null ? "-" : InetAddresses.toText(a);
        }
    }
}
