package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which RDMA port a received RoCE frame belongs to. It is the port of the net device the frame
 * lands on after the receive handlers: bond_handle_frame hands an active slave's frame to the
 * bond, and rxe_udp_encap_recv takes the RDMA device of skb->dev (a NIC's RoCE LAG device sits on
 * the bond the same way). That port's own GID table, with its own index order, then decides. So
 * when a device on a bond and another on its slave both hold the destination GID, the bond's wins.
 */
public final class IngressPorts {
    private IngressPorts() {}

    /** The port, and the trace step that says why it. */
    public record Choice(String device, int port, TraceStep why) {}

    private record Holder(RdmaDevice device, RdmaPort port) {
        LinkRef netdev() {
            return port.netdev();
        }

        String name() {
            return device.name() + "/" + port.number();
        }
    }

    /**
     * The port a frame to {@code dgid} (and {@code dmac}, when the capture has it) arrives on, or
     * empty when no RoCE port's GID table holds {@code dgid}.
     */
    public static Optional<Choice> forFrame(HostState state, Gid dgid, HwAddr dmac) {
        TopologySnapshot topo = state.topology();
        List<Holder> holders = new ArrayList<>();
        for (RdmaDevice d : state.rdma().devices()) {
            for (RdmaPort p : d.ports()) {
                if (p.roce() && !p.entriesFor(dgid).isEmpty()) {
                    holders.add(new Holder(d, p));
                }
            }
        }
        if (holders.isEmpty()) {
            return Optional.empty();
        }
        if (holders.size() == 1) {
            Holder h = holders.get(0);
            return Optional.of(choice(h, List.of(h.name()), "the only RoCE port whose GID table holds " + dgid));
        }
        List<String> names = holders.stream().map(h -> h.name() + " (" + linkName(topo, h.netdev()) + ")").toList();
        // The NIC (or the netdev rxe listens on) that the frame's destination MAC is for.
        List<Holder> reached = new ArrayList<>();
        if (dmac != null) {
            for (Holder h : holders) {
                if (receives(topo, h.netdev(), dmac)) {
                    reached.add(h);
                }
            }
        }
        List<Holder> arriving = reached.isEmpty() ? holders : reached;
        List<Holder> kept = new ArrayList<>();
        String handedOver = null;
        for (Holder h : arriving) {
            LinkRef lands = landing(topo, h.netdev());
            Holder taker = lands.equals(h.netdev()) ? null : holderOn(holders, lands);
            if (taker == null) {
                kept.add(h);
            } else if (handedOver == null) {
                handedOver = linkName(topo, h.netdev()) + " is an active port of bond " + linkName(topo, lands)
                        + ": bond_handle_frame hands its frames to the bond, whose RDMA device takes them "
                        + "(rxe_udp_encap_recv: the device of skb->dev)";
            }
        }
        if (kept.isEmpty()) {
            kept = arriving;
        }
        Holder chosen = kept.get(0);
        String why;
        if (kept.size() == 1) {
            why = "several RoCE ports hold " + dgid
                    + (reached.isEmpty() || reached.size() == holders.size()
                            ? ""
                            : "; the frame's destination MAC " + dmac + " reaches "
                                    + String.join(
                                            ", ",
                                            reached.stream().map(Holder::name).toList()))
                    + (handedOver == null ? "" : "; " + handedOver) + ": " + chosen.name() + "'s own GID table decides";
        } else {
            why = "several RoCE ports hold " + dgid + " and nothing in the frame tells them apart: the first, "
                    + chosen.name() + " (name the port with --device)";
        }
        return Optional.of(choice(chosen, names, why));
    }

    /**
     * The device that owns a frame a tap on {@code device}'s netdev sees arrive there: its own, or
     * the device on the bond that bond_handle_frame hands the frame to.
     */
    public static String ownerOfArrival(HostState state, String device) {
        Optional<RdmaPort> port = state.rdma().port(device, 1);
        if (port.isEmpty() || port.get().netdev() == null) {
            return device;
        }
        LinkRef lands = landing(state.topology(), port.get().netdev());
        if (lands.equals(port.get().netdev())) {
            return device;
        }
        for (RdmaDevice d : state.rdma().devices()) {
            for (RdmaPort p : d.ports()) {
                if (p.roce() && lands.equals(p.netdev())) {
                    return d.name();
                }
            }
        }
        return device;
    }

    /** bond_handle_frame, as often as bonds are stacked: an active slave's frame goes up to its master. */
    static LinkRef landing(TopologySnapshot topo, LinkRef dev) {
        LinkRef cur = dev;
        for (int i = 0; i < 8; i++) {
            Optional<LinkRef> master = topo.masterOf(cur);
            Link m = master.map(topo::link).orElse(null);
            if (m == null || !(m.info() instanceof LinkInfo.Bond b)) {
                return cur;
            }
            boolean active = b.mode() != LinkInfo.Bond.MODE_ACTIVEBACKUP
                    || b.activeSlave() == 0
                    || b.activeSlave() == cur.ifindex();
            if (!active) {
                return cur; // an inactive slave's frame stays there (RX_HANDLER_EXACT) and reaches no bond
            }
            cur = master.get();
        }
        return cur;
    }

    /**
     * Whether a frame to {@code mac} is for this netdev: its own MAC, a bond port's, or a macvlan child's (a NIC
     * filters for them).
     */
    private static boolean receives(TopologySnapshot topo, LinkRef netdev, HwAddr mac) {
        if (netdev == null) {
            return false;
        }
        Link l = topo.link(netdev);
        if (l != null && mac.equals(l.mac())) {
            return true;
        }
        for (LinkRef s : topo.slavesOf(netdev)) {
            Link sl = topo.link(s);
            if (sl != null && mac.equals(sl.mac())) {
                return true;
            }
        }
        for (LinkRef c : topo.childrenOf(netdev)) {
            Link cl = topo.link(c);
            if (cl != null && cl.info() instanceof LinkInfo.Macvlan && mac.equals(cl.mac())) {
                return true;
            }
        }
        return false;
    }

    private static Holder holderOn(List<Holder> holders, LinkRef netdev) {
        for (Holder h : holders) {
            if (netdev.equals(h.netdev())) {
                return h;
            }
        }
        return null;
    }

    private static Choice choice(Holder h, List<String> candidates, String why) {
        return new Choice(h.device().name(), h.port().number(),
                new TraceStep(
                        "arrival",
                        "bond_handle_frame / rxe_udp_encap_recv",
                        "which RoCE port's GID table the frame is matched against",
                        candidates,
                        h.name(),
                        why));
    }

    private static String linkName(TopologySnapshot topo, LinkRef r) {
        if (r == null) {
            return "no netdev";
        }
        Link l = topo.link(r);
        NetnsState ns = topo.namespace(r.netns());
        return (l == null ? "ifindex " + r.ifindex() : l.name()) + "@"
                + (ns == null ? r.netns().toString() : ns.displayName());
    }
}
