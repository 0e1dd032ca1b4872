package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.netdev.Link;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * The net device the kernel ties a request to. RoCE: the lowest-index GID entry that matches the
 * packet (ib_init_ah_attr_from_wc → rdma_find_gid_by_filter, the gate in both modes) and its ndev
 * (roce_get_net_dev_by_cm_event). InfiniBand: ipoib_get_net_dev_by_params, its P_Key, L2 and L3 passes.
 */
final class KernelNetdev extends WalkBase {
    KernelNetdev(WalkBase walk) {
        super(walk);
    }

    // ---- RoCE ----
    /**
     * ib_init_ah_attr_from_wc → get_sgid_index_from_eth → rdma_find_gid_by_filter: the lowest
     * index whose GID and type match and whose ndev is a vlan device exactly when the frame was
     * tagged, with the same VID.
     */
    GidEntry matchGid(RdmaPort port) {
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
                refs.add(new TraceCandidate(ref,
                        why != null
                                ? why
                                : "shadowed by index " + chosen.index() + ": the lowest matching index wins"));
            }
        }
        if (!tracing) {
            return null;
        }
        step(
                "gid-match",
                "ib_init_ah_attr_from_wc / rdma_find_gid_by_filter",
                "destination " + meta.dgid() + ", "
                        + meta.networkType().gidType().text() + vlanText(),
                cands,
                chosen == null ? null : "index " + chosen.index() + " (ndev " + linkName(chosen.ndev()) + ")",
                chosen == null
                        ? "no entry matches: cm_req_handler fails in cm_init_av_for_response and sends nothing"
                        : "the lowest matching index wins" + (cands.size() > 1 ? "; the others are shadowed" : ""),
                // In netstack mode the GID match is only the port's gate: the walk starts again at the port's netdev.
                chosen == null || mode != ResolverMode.KERNEL
                        ? null
                        : new TraceRef.GidIndex(meta.key().device(), meta.key().port(), chosen.index(), chosen.ndev()),
                refs);
        return chosen;
    }

    LinkRef kernelNetdev(RdmaPort port, GidEntry gidEntry) {
        if (port.roce()) {
            LinkRef ndev = gidEntry.ndev();
            if (tracing) {
                step("net-dev", "roce_get_net_dev_by_cm_event", "gid_attr ndev of index " + gidEntry.index(), List.of(),
                        ndev == null ? null : linkName(ndev),
                        ndev == null
                                ? "the GID entry has no net device: -ENODEV, REJ 28"
                                : "the matched GID entry's ndev",
                        ndev == null ? null : new TraceRef.Netdev(ndev), List.of());
            }
            return ndev;
        }
        return ipoibNetdev(port);
    }

    // ---- IB: ipoib_get_net_dev_by_params ----
    LinkRef ipoibNetdev(RdmaPort port) {
        OptionalInt pkeyIndex = port.pkeys().indexOf(meta.pkey());
        if (tracing) {
            step("pkey-index", "ib_find_cached_pkey", "P_Key 0x" + Integer.toHexString(meta.pkey()),
                    port.pkeys().pkeys().stream()
                            .map(p -> String.format("0x%04x", p))
                            .toList(),
                    pkeyIndex.isPresent() ? "index " + pkeyIndex.getAsInt() : null,
                    pkeyIndex.isPresent()
                            ? "low 15 bits compared, full membership preferred"
                            : "P_Key not in the table: no net device, REJ 28",
                    pkeyIndex.isPresent()
                            ? new TraceRef.PkeyIndex(meta.key().device(), meta.key().port(), pkeyIndex.getAsInt())
                            : null,
                    List.of());
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
                step("ipoib-l2", "ipoib_match_gid_pkey_addr (L2)",
                        "P_Key index " + pkeyIndex.getAsInt() + ", GID " + meta.ourGid(), l2, linkName(result),
                        result.equals(dev)
                                ? "exactly one IPoIB device matches"
                                : "exactly one matches; its bonding master is returned (ipoib_get_master_net_dev)",
                        new TraceRef.Netdev(result), l2Refs);
            }
            return result;
        }
        if (l2Matches.isEmpty()) {
            if (tracing) {
                step("ipoib-l2", "ipoib_match_gid_pkey_addr (L2)",
                        "P_Key index " + pkeyIndex.getAsInt() + ", GID " + meta.ourGid(), l2, null,
                        "no IPoIB device matches: no net device, REJ 28", null, l2Refs);
            }
            return null;
        }
        if (tracing) {
            step("ipoib-l2", "ipoib_match_gid_pkey_addr (L2)",
                    "P_Key index " + pkeyIndex.getAsInt() + ", GID " + meta.ourGid(), l2, null,
                    "two or more match: try the destination IP (L3 pass)", null, l2Refs);
        }
        return ipoibByAddress(port, order, pkeyIndex);
    }

    /**
     * ipoib_get_net_dev_match_addr, the L3 pass when the P_Key index and GID match more than one device: the
     * first of them, or an upper of it at any depth, that owns the destination IP in its own namespace.
     */
    private LinkRef ipoibByAddress(RdmaPort port, List<LinkRef> order, OptionalInt pkeyIndex) {
        List<String> l3 = tracing ? new ArrayList<>() : null;
        List<TraceCandidate> l3Refs = tracing ? new ArrayList<>() : null;
        LinkRef first = null;
        int matches = 0;
        for (LinkRef d : order) {
            Link l = topo.link(d);
            if (!ipoibPkeyIndex(port, l).equals(pkeyIndex)
                    || !(meta.ourGid() == null || meta.ourGid().equals(ipoibGid(l)))) {
                continue;
            }
            LinkRef owner = ownsIp(d) ? d : firstUpperOwning(d);
            if (tracing) {
                l3.add(l.name()
                        + (owner == null
                                ? " — neither it nor an upper holds " + text(meta.dstIp())
                                : " — " + linkName(owner) + " holds " + text(meta.dstIp())));
                l3Refs.add(new TraceCandidate(new TraceRef.Netdev(owner == null ? d : owner),
                        owner == null
                                ? "neither it nor an upper holds " + text(meta.dstIp())
                                : first != null
                                        ? "holds it too, but the first in the list wins (duplicate IP address detected)"
                                        : null));
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
            step("ipoib-l3", "ipoib_get_net_dev_match_addr (L3)", "destination " + text(meta.dstIp()), l3,
                    first == null ? null : linkName(first),
                    first == null
                            ? "no device holds the address: no net device, REJ 28"
                            : matches > 1
                                    ? "duplicate IP address detected: the kernel warns and takes the first"
                                    : "exactly one holds the address",
                    first == null ? null : new TraceRef.Netdev(first), l3Refs);
        }
        return first;
    }

    OptionalInt ipoibPkeyIndex(RdmaPort port, Link l) {
        return port.pkeys().indexOf(ipoibPkey(l));
    }

    /**
     * cm_req_handler → cm_init_av_for_response → ib_init_ah_attr_from_wc → ib_resolve_unicast_gid_dmac:
     * before it looks for a listener, ib_cm resolves the requester's MAC through the matched entry's
     * net device (rdma_resolve_ip from our GID to the packet's source, in that device's namespace,
     * with it as output interface, then ARP/ND). A failure drops the request without an answer.
     * The neighbour is taken to answer: it has just sent us the request on that link.
     *
     * @return null when the route is there, else why not (the drop's reason)
     */
    String answerRoute(GidEntry entry) {
        String why = route(entry, entry.gid(), meta.srcGid(), "cm_init_av_for_response / ib_resolve_unicast_gid_dmac",
                "resolve-requester", "the packet's source");
        return why == null ? null : why + "; cm_req_handler drops the request and sends nothing";
    }

    /**
     * cm_req_handler → cm_init_av_by_path → roce_resolve_route_from_path: the REQ's primary path (our
     * GID, the REQ's primary remote port GID, to the peer's, its primary local port GID) must route
     * through the same entry's net device; else ib_cm sends REJ 2 (IB_CM_REJ_INVALID_GID). Kernels
     * before June 2026's fix of cm_req_handler (it destroyed the address vector before this step)
     * lose that REJ, and the requester hears nothing. A SIDR REQ has no path and no such step.
     */
    boolean pathRoute(GidEntry entry) {
        return route(
                        entry,
                        meta.ourGid(),
                        meta.peerGid(),
                        "cm_init_av_by_path / roce_resolve_route_from_path",
                        "path-route",
                        "the REQ's primary local port GID")
                == null;
    }

    private String route(GidEntry entry, Gid ours, Gid peer, String fn, String stepName, String peerName) {
        LinkRef ndevRef = entry.ndev();
        Link ndev = ndevRef == null ? null : topo.link(ndevRef);
        NetnsState ns = ndevRef == null ? null : topo.namespace(ndevRef.netns());
        if (ndev == null || ns == null || ours == null || peer == null) {
            // No net device to route through (a table read from sysfs that could not name it), or no
            // address to route to: nothing here can tell, so the request goes on.
            return null;
        }
        RouteCheck.Result rc = RouteCheck.outputRoute(ns, ndev, ours.toInetAddress(), peer.toInetAddress(), tracing);
        if (!rc.ok() && rc.why() == null) {
            rc = RouteCheck.outputRoute(
                    ns, ndev, ours.toInetAddress(), peer.toInetAddress(), true); // the drop's reason, in words
        }
        if (tracing) {
            // In kernel mode the walk stands on the entry's net device
            // already; netstack mode only passes the gate here.
            step(stepName, fn,
                    "from our GID " + ours + " to " + peerName + " " + peer + " with oif " + ndev.name() + " in "
                            + ns.displayName(),
                    List.of(), rc.ok() ? ndev.name() : null, rc.why(),
                    rc.ok() && mode == ResolverMode.KERNEL ? new TraceRef.Netdev(ndevRef) : null, List.of());
        }
        return rc.ok() ? null : rc.why();
    }
}
