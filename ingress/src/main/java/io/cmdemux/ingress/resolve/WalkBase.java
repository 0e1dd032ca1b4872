package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
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
import java.util.Set;

/**
 * What every part of one resolution shares: the request, the state it is decided on, and the trace
 * being written. With {@code tracing} each step is written down as it is taken; without, only the
 * answer is made, and text that feeds nothing but the trace is left unwritten. Both take the same
 * branches, so the answer never depends on whether the trace is written. The parts ({@link Walk},
 * {@link KernelNetdev}, {@link NetstackWalk}, {@link ListenerMatch}) are made from one another and
 * write into the same trace.
 */
abstract class WalkBase {
    final HostState state;
    final TopologySnapshot topo;
    final PacketMeta meta;
    final ResolverMode mode;
    final boolean tracing;
    final List<TraceStep> trace;

    WalkBase(HostState state, PacketMeta meta, ResolverMode mode, boolean tracing) {
        this.state = state;
        this.topo = state.topology();
        this.meta = meta;
        this.mode = mode;
        this.tracing = tracing;
        this.trace = tracing ? new ArrayList<>() : List.of();
    }

    /** Another part of the same resolution. */
    WalkBase(WalkBase walk) {
        this.state = walk.state;
        this.topo = walk.topo;
        this.meta = walk.meta;
        this.mode = walk.mode;
        this.tracing = walk.tracing;
        this.trace = walk.trace;
    }

    // Callers on the common path test {@code tracing} first, so that the text is not even built.
    void step(String step, String fn, String detail, List<String> candidates, String chosen, String why) {
        if (tracing) {
            trace.add(new TraceStep(step, fn, detail, candidates, chosen, why));
        }
    }

    /** A step that moves the walk to {@code at} (null: it stays) and chose among {@code options}. */
    void step(String step, String fn, String detail, List<String> candidates, String chosen, String why, TraceRef at,
            List<TraceCandidate> options) {
        if (tracing) {
            trace.add(new TraceStep(step, fn, detail, candidates, chosen, why, at, options));
        }
    }

    // ---- the topology, as the request sees it ----

    /** Parents on the port in list order, each followed depth-first by its IPoIB children. */
    List<LinkRef> ipoibOrder(RdmaPort port) {
        List<LinkRef> out = new ArrayList<>();
        for (LinkRef p : port.ipoibParents()) {
            addWithChildren(p, out, new HashSet<>());
        }
        return out;
    }

    void addWithChildren(LinkRef d, List<LinkRef> out, Set<LinkRef> seen) {
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

    static int ipoibPkey(Link l) {
        return l.info() instanceof LinkInfo.Ipoib i ? i.pkey() : 0xffff;
    }

    /** The 20-byte IPoIB hardware address: 4 bytes of flags and QPN, then the GID. */
    static Gid ipoibGid(Link l) {
        HwAddr mac = l.mac();
        if (mac == null || mac.length() != 20) {
            return Gid.ZERO;
        }
        return Gid.of(Arrays.copyOfRange(mac.bytes(), 4, 20));
    }

    /** netdev_walk_all_upper_dev_rcu: uppers depth-first, pre-order. */
    LinkRef firstUpperOwning(LinkRef dev) {
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

    List<LinkRef> sortedUppers(LinkRef dev) {
        List<LinkRef> ups = new ArrayList<>(topo.uppersOf(dev));
        ups.sort(Comparator.comparingInt(LinkRef::ifindex));
        return ups;
    }

    /**
     * inet_confirm_addr / ipv6_chk_addr(strict): the address is on this device in its own
     * namespace; tentative IPv6 addresses do not count.
     */
    boolean ownsIp(LinkRef dev) {
        NetnsState ns = topo.namespace(dev.netns());
        if (ns == null || meta.dstIp() == null) {
            return false;
        }
        for (Address a : ns.addresses()) { // addressesOf(ifindex), without a list per call
            if (a.ifindex() == dev.ifindex() && a.address().equals(meta.dstIp())) {
                boolean tentative = a.address() instanceof Inet6Address
                        && (a.flags() & (Address.IFA_F_TENTATIVE | Address.IFA_F_DADFAILED)) != 0;
                return !tentative;
            }
        }
        return false;
    }

    // ---- listeners ----
    /** Whether the listener's namespace may use the device (rdma_dev_access_netns). */
    boolean deviceUsable(RdmaDevice dev, Listener l) {
        if (l.device() != null && !l.device().equals(dev.name())) {
            return false;
        }
        if (state.rdma().netnsMode() == RdmaTopology.NetnsMode.EXCLUSIVE && !dev.soft() && dev.netns() != null) {
            return dev.netns().equals(l.netns());
        }
        return true;
    }

    // ---- text ----

    // ---- text ----
    String describe(Listener l) {
        NetnsState ns = topo.namespace(l.netns());
        String where = ns == null ? l.netns().toString() : ns.displayName();
        String addr = l.afIb() ? "AF_IB" : text(l.address());
        return where + " " + addr + ":" + l.port() + "/" + l.portSpace().cliName() + " "
                + l.qpType().rdmaName() + (l.afonly() ? " afonly" : "")
                + (l.owner() == null ? "" : " (" + l.owner() + ")");
    }

    String linkName(LinkRef r) {
        if (r == null) {
            return "none";
        }
        Link l = topo.link(r);
        NetnsState ns = topo.namespace(r.netns());
        return (l == null ? "ifindex " + r.ifindex() : l.name()) + "@"
                + (ns == null ? r.netns().toString() : ns.displayName());
    }

    String vlanText() {
        return meta.vlan().isPresent() ? ", VLAN " + meta.vlan().getAsInt() : ", untagged";
    }

    static String text(java.net.InetAddress a) {
        return a == null ? "-" : InetAddresses.toText(a);
    }
}
