package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.RdmaPort;
import io.cmdemux.namespaces.AddressRef;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * NETSTACK mode's net device: the synthesised frame walks up the receive path. The port's netdev
 * (or the IPoIB device whose P_Key and GID the packet names) receives it; then, hop by hop, a bond
 * takes an active slave's frame (bond_handle_frame), a bridge keeps only frames for itself
 * (br_handle_frame), a vlan device takes its VID (vlan_do_receive), and a macvlan (by destination
 * MAC) or ipvlan (by destination IP) child claims it (rx_handler); where nothing claims it, the
 * namespace must hold the destination IP (ip_route_input, a weak-host stack).
 */
final class NetstackWalk extends WalkBase {
    /** How many devices the frame may climb before the walk gives up (a loop in a broken topology). */
    private static final int MAX_HOPS = 16;

    NetstackWalk(WalkBase walk) {
        super(walk);
    }

    /** Where the frame ends: a device, or why it was dropped on the way. */
    record Rx(LinkRef dev, String dropReason) {
        static Rx to(LinkRef dev) {
            return new Rx(dev, null);
        }

        static Rx dropped(String reason) {
            return new Rx(null, reason);
        }

        /** The frame stays where it is: no handler of this kind moved it. */
        static final Rx STAY = new Rx(null, null);
    }

    /**
     * The device the frame is delivered on, or why it never is; {@code Rx(null, null)} when the port has no net device.
     */
    Rx netdev(RdmaPort port) {
        LinkRef dev;
        if (port.roce()) {
            dev = port.netdev();
            if (dev == null || topo.link(dev) == null) {
                step("rx-start", "netif_receive_skb", "RoCE port net device", List.of(), null,
                        "the port has no net device");
                return Rx.STAY;
            }
            if (tracing) {
                step("rx-start", "netif_receive_skb",
                        "frame to "
                                + (meta.dmac() == null
                                        ? "(MAC unknown)"
                                        : meta.dmac().toString()) + vlanText(),
                        List.of(), linkName(dev), "the port's net device receives the frame", new TraceRef.Netdev(dev),
                        List.of());
            }
        } else {
            Rx rx = ipoibRxDevice(port);
            if (rx.dev() == null) {
                return rx;
            }
            dev = rx.dev();
        }
        boolean vlanPending = meta.vlan().isPresent();
        for (int hop = 0; hop < MAX_HOPS; hop++) {
            Rx next = master(dev);
            if (next == Rx.STAY && vlanPending) {
                next = vlan(dev);
                vlanPending = false;
            } else if (next == Rx.STAY) {
                next = upper(dev);
            }
            if (next.dropReason() != null) {
                return next;
            }
            if (next == Rx.STAY) {
                break;
            }
            dev = next.dev();
        }
        return local(dev);
    }

    /**
     * The handler of {@code dev}'s master: a bond (bond_handle_frame) or a bridge (br_handle_frame); STAY without one.
     */
    private Rx master(LinkRef dev) {
        Optional<LinkRef> master = topo.masterOf(dev);
        Link m = master.map(topo::link).orElse(null);
        if (m == null) {
            return Rx.STAY;
        }
        Link l = topo.link(dev);
        if (m.info() instanceof LinkInfo.Bond b) {
            boolean active = b.activeSlave() == 0
                    || b.activeSlave() == dev.ifindex()
                    || b.mode() != LinkInfo.Bond.MODE_ACTIVEBACKUP;
            if (tracing) {
                step("rx-bond", "bond_handle_frame", l.name() + " is a port of " + m.name() + " (" + b.modeName() + ")",
                        List.of(), active ? m.name() : null,
                        active ? "the bond takes the frame" : "an inactive slave in active-backup mode drops it",
                        active ? new TraceRef.Netdev(master.get()) : null, List.of());
            }
            return active ? Rx.to(master.get()) : Rx.dropped("frame arrived on inactive bond slave " + l.name());
        }
        if (m.info() instanceof LinkInfo.Bridge) {
            boolean local = meta.dmac() != null && meta.dmac().equals(m.mac());
            if (tracing) {
                step("rx-bridge", "br_handle_frame", l.name() + " is a port of bridge " + m.name(), List.of(),
                        local ? m.name() : null,
                        local
                                ? "the frame is for the bridge itself"
                                : "the bridge forwards it to another port; no local device gets it",
                        local ? new TraceRef.Netdev(master.get()) : null, List.of());
            }
            return local
                    ? Rx.to(master.get())
                    : Rx.dropped("bridged past " + m.name() + ": the frame is not for a local device");
        }
        return Rx.STAY;
    }

    /**
     * vlan_do_receive: a tagged frame goes to the vlan device of its VID (the lowest ifindex if several), or is
     * dropped.
     */
    private Rx vlan(LinkRef dev) {
        Link l = topo.link(dev);
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
            step("rx-vlan", "vlan_do_receive", "VID " + meta.vlan().getAsInt() + " on " + l.name(), c,
                    vdev == null ? null : linkName(vdev),
                    vdev == null
                            ? "no vlan device has this VID: the frame is dropped"
                            : "the vlan device with this VID takes the frame",
                    vdev == null ? null : new TraceRef.Netdev(vdev), refs);
        }
        return vdev == null
                ? Rx.dropped("no vlan device for VID " + meta.vlan().getAsInt() + " on " + l.name())
                : Rx.to(vdev);
    }

    /**
     * The rx handlers of {@code dev}'s children: a macvlan by destination MAC (macvlan_handle_frame), an
     * ipvlan by destination IP (ipvlan_handle_mode_l2/l3); STAY when none claims the frame. They are
     * looked up, not scanned; untraced, the first claimant ends each lookup, the rest only fill the trace.
     */
    private Rx upper(LinkRef dev) {
        Link l = topo.link(dev);
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
                        refs.add(new TraceCandidate(
                                new TraceRef.Netdev(k), next == null ? null : "an earlier upper took the frame"));
                    }
                    if (next == null) {
                        next = k;
                        how = tracing ? "macvlan_handle_frame: destination MAC " + meta.dmac() : null;
                    }
                }
            }
        }
        if (next == null) {
            for (AddressRef owner : topo.byIp(meta.dstIp())) {
                if (next != null && !tracing) {
                    break;
                }
                LinkRef child = childOnPath(owner.link(), dev);
                Link kl = child == null ? null : topo.link(child);
                if (kl == null) {
                    continue;
                }
                String claim = null;
                if (kl.info() instanceof LinkInfo.Ipvlan iv) {
                    if (tracing) {
                        c.add(kl.name() + " ipvlan " + iv.modeName());
                    }
                    claim = iv.mode() == LinkInfo.Ipvlan.MODE_L2
                            ? "ipvlan_handle_mode_l2: slaves share the master's MAC, "
                                    + "so unicast frames are matched by IP"
                            : "ipvlan_handle_mode_l3: the slave that holds the destination IP";
                } else if (kl.info() instanceof LinkInfo.Macvlan && meta.dmac() == null) {
                    if (tracing) {
                        c.add(kl.name() + " macvlan " + kl.mac());
                    }
                    claim =
                            "no destination MAC known; "
                                    + "the macvlan that holds the IP is the one ARP/ND would have named";
                }
                if (claim == null) {
                    continue;
                }
                if (tracing) {
                    refs.add(new TraceCandidate(
                            new TraceRef.Netdev(child), next == null ? null : "an earlier upper took the frame"));
                }
                if (next == null) {
                    next = child;
                    how = claim;
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
                step("rx-upper", "rx_handler", "on " + l.name(), c, linkName(next), how, new TraceRef.Netdev(next),
                        refs);
            }
        }
        return next == null ? Rx.STAY : Rx.to(next);
    }

    /**
     * The frame now belongs to dev's namespace. ip_route_input delivers it locally when the address is
     * local anywhere in that namespace (Linux is a weak-host stack), not only on dev itself.
     */
    private Rx local(LinkRef dev) {
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
            step("rx-local", "ip_route_input / ip_local_deliver",
                    "destination " + text(meta.dstIp()) + " in the namespace of " + linkName(dev), holders,
                    !held ? null : linkName(dev),
                    !held
                            ? "no device in that namespace holds the address: not for this host"
                            : ownsIp(dev)
                                    ? "the receiving device holds the address"
                                    : "another device of the namespace holds it; a weak-host stack delivers it anyway",
                    !held ? null : new TraceRef.Netdev(dev), List.of());
        }
        return held
                ? Rx.to(dev)
                : Rx.dropped("the netstack's final device " + linkName(dev) + " is in a namespace that does not hold "
                        + text(meta.dstIp()));
    }

    /** IB in netstack mode: the IPoIB child whose P_Key and GID the packet names, else the parent. */
    private Rx ipoibRxDevice(RdmaPort port) {
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
                String no = misses.get(i) != null
                        ? misses.get(i)
                        : d.equals(chosen)
                                ? null
                                : "matches too, but neither it nor an upper holds " + text(meta.dstIp());
                refs.add(new TraceCandidate(new TraceRef.Netdev(d), no));
            }
            step("rx-ipoib", "ipoib_ib_handle_rx_wc",
                    "P_Key 0x" + Integer.toHexString(meta.pkey()) + ", GID " + meta.ourGid(), c,
                    chosen == null ? null : linkName(chosen),
                    chosen == null
                            ? "no IPoIB device takes the packet"
                            : hits.size() > 1
                                    ? "children share the GID; the one whose stack holds the IP"
                                    : "the IPoIB device with this P_Key and GID",
                    chosen == null ? null : new TraceRef.Netdev(chosen), refs);
        }
        if (chosen == null) {
            return Rx.dropped("no IPoIB device on " + meta.key().device() + "/"
                    + meta.key().port() + " for P_Key 0x" + Integer.toHexString(meta.pkey()));
        }
        return Rx.to(chosen);
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
     * Uppers of dev that the rx handlers passed over, with why: at most {@link Resolver#TURNED_DOWN_KEPT}, so
     * that a port shared by a thousand pods costs the trace a bounded walk, not one string per pod.
     */
    private void addTurnedDown(LinkRef dev, List<TraceCandidate> refs) {
        Set<LinkRef> taken = new HashSet<>();
        refs.forEach(r -> taken.add(((TraceRef.Netdev) r.ref()).link()));
        int kept = 0;
        for (LinkRef k : topo.childrenOf(dev)) {
            if (kept == Resolver.TURNED_DOWN_KEPT) {
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
}
