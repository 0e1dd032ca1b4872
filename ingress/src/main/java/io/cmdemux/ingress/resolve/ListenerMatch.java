package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.LinkRef;
import java.net.Inet6Address;
import java.util.ArrayList;
import java.util.List;

/**
 * cma_find_listener over one bind list, and what cma_ib_req_handler checks once it has found its
 * listener: cma_ib_check_req_qp_type and cma_ib_acquire_dev.
 */
final class ListenerMatch extends WalkBase {
    ListenerMatch(WalkBase walk) {
        super(walk);
    }

    /**
     * The listener that takes the request, or null when none does (REJ 28, or IB_SIDR_REJECT): the
     * newest listener of the bind list that matches, if the checks after cma_find_listener pass.
     */
    Listener find(
            List<Listener> bindList, RdmaDevice device, RdmaPort port, LinkRef netdev, PortSpace ps, String nsName) {
        List<String> tried = tracing ? new ArrayList<>() : null;
        List<TraceCandidate> triedRefs = tracing ? new ArrayList<>() : null;
        for (Listener l : bindList) {
            String why = listenerMismatch(l, device, netdev);
            if (tracing) {
                tried.add(describe(l) + (why == null ? "" : " — " + why));
                triedRefs.add(new TraceCandidate(new TraceRef.Listen(l), why));
                if (why == null) {
                    step("listener", "cma_find_listener", ps.kernelName() + " port " + meta.port() + " in " + nsName,
                            tried, describe(l), "the most recently bound listener whose address matches the header "
                                    + "(cma_match_private_data) and whose device and net device match "
                                    + "(cma_match_net_dev)",
                            new TraceRef.Listen(l), triedRefs);
                }
            }
            if (why == null) {
                // The first listener that matches is the one: a check that fails after this rejects, it tries no other.
                return qpTypeMatches(l) && acquiresDevice(port, netdev, l) ? l : null;
            }
        }
        if (tracing) {
            step("listener", "cma_find_listener", ps.kernelName() + " port " + meta.port() + " in " + nsName, tried,
                    null, "no listener matches: -EINVAL, REJ 28", null, triedRefs);
        }
        return null;
    }

    /** Null when the listener takes the request; else why not (cma_match_private_data, cma_match_net_dev). */
    String listenerMismatch(Listener l, RdmaDevice dev, LinkRef netdev) {
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
            return l.device() != null
                    ? "attached to device " + l.device()
                    : "its namespace may not use " + dev.name() + " (exclusive netns mode)";
        }
        if (netdev != null && meta.dstIp() instanceof Inet6Address a6 && a6.isLinkLocalAddress()) {
            if (!netdev.netns().equals(l.netns())) {
                return "IPv6 link-local: another namespace";
            }
            if (l.boundIfindex() != 0 && l.boundIfindex() != netdev.ifindex()) {
                return "IPv6 link-local: bound to ifindex " + l.boundIfindex() + ", the request came on "
                        + netdev.ifindex();
            }
        }
        return null;
    }

    /**
     * cma_ib_check_req_qp_type: a REQ's QP type must be the listener's, a SIDR REQ needs a UD
     * listener; otherwise cma_ib_req_handler fails with -EINVAL, ib_cm sends REJ 28 (a SIDR REP
     * with IB_SIDR_REJECT for a SIDR REQ).
     */
    boolean qpTypeMatches(Listener l) {
        boolean ok = meta.sidr() ? l.qpType() == QpType.UD : l.qpType() == meta.qpType();
        if (tracing) {
            String req = meta.sidr()
                    ? "a SIDR REQ (UD)"
                    : "a REQ of QP type "
                            + (meta.qpType() == null
                                    ? "0 (transport no rdma_cm id has)"
                                    : meta.qpType().rdmaName());
            // A check that passes stays at the listener (the picture
            // merges it into that hop); one that fails ends the walk.
            step("qp-type", "cma_ib_check_req_qp_type",
                    req + "; the " + l.portSpace().kernelName() + " listener is "
                            + l.qpType().rdmaName(),
                    List.of(), ok ? describe(l) : null,
                    ok
                            ? "the QP types agree"
                            : "the listener's QP type is not the request's: -EINVAL, "
                                    + (meta.sidr() ? "SIDR REP IB_SIDR_REJECT" : "REJ 28"),
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
    boolean acquiresDevice(RdmaPort port, LinkRef netdev, Listener l) {
        if (!port.roce()) {
            return true; // the IPoIB netdev's own GID, which ipoib_get_net_dev_by_params just matched
        }
        String why = null;
        String chosen = null;
        if (l.portSpace() == PortSpace.IPOIB) {
            why = "an RDMA_PS_IPOIB id on a RoCE port (dev_type is not ARPHRD_INFINIBAND): -EINVAL, REJ 28";
        } else if (meta.afIb() || l.afIb()) {
            why = (meta.afIb() ? "an AF_IB request" : "an AF_IB listener")
                    + " on a RoCE port: cma_validate_port finds no GID, -ENODEV, REJ 28";
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
            step("acquire-dev", "cma_ib_acquire_dev / cma_validate_port",
                    meta.key().device() + "/" + meta.key().port() + ", "
                            + l.portSpace().kernelName()
                            + (meta.afIb() ? ", AF_IB" : ", our address " + text(meta.dstIp())),
                    List.of(), why == null ? chosen : null,
                    why == null ? "the new id's GID is on the port, with the request's net device" : why,
                    why == null ? new TraceRef.Listen(l) : null, List.of());
        }
        return why == null;
    }

    /**
     * cma_add_one's default_gid_type: RoCE v2 where the port supports it (CMA_PREFERRED_ROCE_GID_TYPE),
     * else RoCE v1; configfs can change it, which no snapshot shows.
     */
    static GidType defaultGidType(RdmaPort port) {
        for (GidEntry e : port.gids()) {
            if (e.type() == GidType.ROCE_V2) {
                return GidType.ROCE_V2;
            }
        }
        return port.gids().isEmpty() ? GidType.ROCE_V2 : GidType.ROCE_V1;
    }
}
