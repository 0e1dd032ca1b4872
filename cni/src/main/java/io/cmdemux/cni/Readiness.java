package io.cmdemux.cni;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidCheck;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.RoceGidRules;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import io.cmdemux.pods.Attachment;
import io.cmdemux.pods.GidAssignment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Is each pod interface ready for RDMA CM? Pure: one view of the host, the pod's namespace as the
 * kernel has it now, and what the previous plugins created. For each interface:
 * <ol>
 *   <li>it and its addresses exist (the fresh read decides, not the possibly lagging view);</li>
 *   <li>the view has caught up with them (else wait);</li>
 *   <li>it sits on an RDMA port: an upper at any depth of a RoCE port's netdev, as roce_gid_mgmt
 *       finds uppers (macvlan, ipvlan, vlan, bond), or an IPoIB child (or ipvlan over one) of an
 *       IB port's IPoIB parent;</li>
 *   <li>RoCE: each address has a GID of the requested type whose ndev is this interface, and no
 *       other namespace holds the same GID at a lower index (the kernel would match that one);
 *       IB: the child's P_Key is in the port's P_Key table (ipoib_get_net_dev_by_params);</li>
 *   <li>the device may be used from the pod: ib_core's netns mode is shared, or the device is the pod's.</li>
 * </ol>
 */
final class Readiness {
    private static final Set<String> IB_STACKABLE = Set.of("ipvlan", "ipoib");

    private Readiness() {}

    static ReadinessReport evaluate(RdmaView view, FreshNetns fresh, String netnsPath, List<ExpectedInterface> expected,
            GidType type) {
        List<Attachment> ready = new ArrayList<>();
        List<ReadinessProblem> problems = new ArrayList<>();
        if (expected.isEmpty()) {
            problems.add(ReadinessProblem.permanent(CniError.NO_SANDBOX_INTERFACE, netnsPath,
                    "prevResult names no interface inside the pod's namespace " + netnsPath,
                    "put cmdemux-cni after the plugin that creates the pod's RDMA interface (macvlan, ipvlan, ipoib)"
                            + " in the same conflist"));
        }
        for (ExpectedInterface e : expected) {
            int before = problems.size();
            Attachment a = check(view, fresh, netnsPath, e, type, problems);
            if (a != null && problems.size() == before) {
                ready.add(a);
            }
        }
        return new ReadinessReport(ready, problems);
    }

    private static Attachment check(RdmaView view, FreshNetns fresh, String netnsPath, ExpectedInterface e,
            GidType type, List<ReadinessProblem> out) {
        Link link = fresh.link(e.name());
        if (link == null) {
            out.add(ReadinessProblem.permanent(CniError.INTERFACE_MISSING, e.name(),
                    e.name() + " is not in the pod's namespace " + netnsPath,
                    "the interface plugin before cmdemux-cni should have created it;"
                            + " check its result and that nothing removed it"));
            return null;
        }
        List<InetAddress> ips = new ArrayList<>();
        for (InetAddress ip : e.ips()) {
            if (fresh.has(link.ifindex(), ip)) {
                ips.add(ip);
            } else {
                out.add(ReadinessProblem.permanent(CniError.ADDRESS_MISSING, e.name(),
                        InetAddresses.toText(ip) + " is not on " + e.name() + " in " + netnsPath
                        + " any more, so no GID exists for it", "restore the address (or recreate the pod)"
                        + " so that its IPAM result holds again"));
            }
        }
        if (ips.size() < e.ips().size()) {
            return null;
        }
        TopologySnapshot snap = view.topology();
        NetnsState ns = snap.namespace(fresh.id());
        if (ns == null || !caughtUp(ns, link, ips)) {
            out.add(ReadinessProblem.waiting(e.name(), "the cmdemux view of " + netnsPath + " has not caught up with "
                    + e.name() + " yet",
                    "wait a moment and retry; cmdemux finds namespaces under /run/netns and those of running"
                            + " processes"));
            return null;
        }
        LinkRef ref = new LinkRef(ns.id(), link.ifindex());
        if (ns.link(link.ifindex()).hasParent() && snap.parentOf(ref).isEmpty()) {
            // IFLA_LINK_NETNSID names a namespace the view has no nsid entry for yet: the kernel
            // allocated it with this very link, and the view reads it a moment later.
            out.add(ReadinessProblem.waiting(e.name(), "the cmdemux view has not resolved the lower device of "
                    + e.name() + " yet",
                    "wait a moment and retry"));
            return null;
        }
        List<GidCheck.PortRef> ports = GidCheck.ports(view.rdma());
        for (GidCheck.PortRef p : ports) {
            if (p.port().roce() && onRocePort(snap, p, ref)) {
                return roce(view, p, ref, e.name(), ips, type, out);
            }
        }
        for (GidCheck.PortRef p : ports) {
            if (!p.port().roce()) {
                Link ipoib = ipoibChildOn(snap, p, ref);
                if (ipoib != null) {
                    return ib(view, p, ref, (LinkInfo.Ipoib) ipoib.info(), e.name(), out);
                }
            }
        }
        out.add(ReadinessProblem.permanent(CniError.NOT_ON_RDMA_PORT, e.name(),
                notOnPortMessage(snap, ports, ref, link, netnsPath), notOnPortFix(snap, ports, link)));
        return null;
    }

    /** The view holds the interface under the same ifindex and name, with every address the kernel has for it. */
    private static boolean caughtUp(NetnsState ns, Link fresh, List<InetAddress> ips) {
        Link seen = ns.link(fresh.ifindex());
        if (seen == null || !seen.name().equals(fresh.name())) {
            return false;
        }
        Set<InetAddress> have = new HashSet<>();
        for (Address a : ns.addressesOf(fresh.ifindex())) {
            have.add(a.address());
        }
        return have.containsAll(ips);
    }

    private static boolean onRocePort(TopologySnapshot snap, GidCheck.PortRef p, LinkRef ref) {
        LinkRef netdev = p.port().netdev();
        if (netdev == null || snap.link(netdev) == null) {
            return false;
        }
        Set<LinkRef> uppers = RoceGidRules.allUppers(snap, netdev);
        return (ref.equals(netdev) || uppers.contains(ref))
                && RoceGidRules.isEthPortOfNetdev(snap, netdev, ref, uppers, false);
    }

    private static Attachment roce(RdmaView view, GidCheck.PortRef p, LinkRef ref, String ifname,
            List<InetAddress> ips, GidType type, List<ReadinessProblem> out) {
        if (!usable(view, p, ref, ifname, out)) {
            return null;
        }
        if (p.port().gids().stream().noneMatch(g -> g.type() == type)) {
            out.add(ReadinessProblem.permanent(CniError.GID_TYPE_MISSING, ifname,
                    p.label() + " has no " + type.text() + " GIDs at all",
                    "set \"rdma\": {\"gidType\": \"" + (type == GidType.ROCE_V2 ? "v1" : "v2") + "\"} or enable "
                            + type.text() + " on the port"));
            return null;
        }
        List<GidAssignment> gids = new ArrayList<>();
        for (InetAddress ip : ips) {
            Gid gid = Gid.ofIp(ip);
            GidEntry mine = null;
            for (GidEntry g : p.port().gids()) {
                if (g.gid().equals(gid) && g.type() == type && ref.equals(g.ndev())
                        && (mine == null || g.index() < mine.index())) {
                    mine = g;
                }
            }
            if (mine == null) {
                out.add(ReadinessProblem.waiting(ifname, "no " + type.text() + " GID for " + InetAddresses.toText(ip)
                        + " on " + p.label() + " yet",
                        "retry: the GID table follows address changes within moments; if it persists,"
                                + " see `cmdemux gids check`"));
                continue;
            }
            for (GidEntry g : p.port().gids()) {
                if (g.gid().equals(gid) && g.type() == type && g.index() < mine.index() && g.ndev() != null
                        && !g.ndev().netns().equals(ref.netns())) {
                    out.add(ReadinessProblem.permanent(CniError.SAME_IP_ELSEWHERE, ifname,
                            InetAddresses.toText(ip) + " is also at " + p.label()
                                    + " index " + g.index() + " (" + where(view.topology(), g.ndev())
                                    + "), below this pod's index " + mine.index()
                                    + "; the kernel matches requests to the lowest index,"
                                    + " so this pod never receives connections to it",
                            "give each pod its own IP: check the IPAM ranges of the networks on "
                                    + where(view.topology(), p.port().netdev())));
                }
            }
            gids.add(new GidAssignment(ip, mine.index(), mine.gid(), type));
        }
        return new Attachment(ifname, ref.ifindex(), p.device().name(), p.port().number(), Attachment.ETHERNET,
                gids, -1, -1);
    }

    /**
     * The IPoIB device the pod interface is (or an ipvlan stacks on) when the chain reaches one
     * of this port's IPoIB parents.
     */
    private static Link ipoibChildOn(TopologySnapshot snap, GidCheck.PortRef p, LinkRef ref) {
        Set<LinkRef> parents = new HashSet<>(p.port().ipoibParents());
        Link firstIpoib = null;
        Set<LinkRef> seen = new LinkedHashSet<>();
        LinkRef cur = ref;
        while (cur != null && seen.add(cur)) {
            Link l = snap.link(cur);
            if (l == null) {
                return null;
            }
            if (firstIpoib == null && l.info() instanceof LinkInfo.Ipoib) {
                firstIpoib = l;
            }
            if (parents.contains(cur)) {
                return firstIpoib;
            }
            if (!IB_STACKABLE.contains(l.kind())) {
                return null;
            }
            cur = snap.parentOf(cur).orElse(null);
        }
        return null;
    }

    private static Attachment ib(RdmaView view, GidCheck.PortRef p, LinkRef ref, LinkInfo.Ipoib ipoib, String ifname,
            List<ReadinessProblem> out) {
        if (!usable(view, p, ref, ifname, out)) {
            return null;
        }
        OptionalInt pkeyIndex = p.port().pkeys().indexOf(ipoib.pkey());
        if (pkeyIndex.isEmpty()) {
            List<String> table = new ArrayList<>();
            for (int k : p.port().pkeys().pkeys()) {
                if ((k & 0x7fff) != 0) {
                    table.add(String.format("0x%04x", k));
                }
            }
            out.add(ReadinessProblem.permanent(CniError.PKEY_NOT_IN_TABLE, ifname, String.format(
                            "%s: P_Key 0x%04x of %s is not in the P_Key table of %s %s (low 15 bits compared);"
                            + " RDMA CM finds no netdev for requests with it", ifname, ipoib.pkey(), ifname,
                            p.label(), table),
                    String.format("add partition 0x%04x for this port in the subnet manager (opensm partitions.conf),"
                            + " or use a P_Key from the table", ipoib.pkey() & 0x7fff)));
            return null;
        }
        return new Attachment(ifname, ref.ifindex(), p.device().name(), p.port().number(), Attachment.INFINIBAND,
                List.of(), ipoib.pkey(), pkeyIndex.getAsInt());
    }

    /** rdma_dev_access_netns: in exclusive mode only the namespace a device was moved to may use it. */
    private static boolean usable(RdmaView view, GidCheck.PortRef p, LinkRef ref, String ifname,
            List<ReadinessProblem> out) {
        if (view.rdma().netnsMode() == RdmaTopology.NetnsMode.EXCLUSIVE && !p.device().soft()
                && (p.device().netns() == null || !p.device().netns().equals(ref.netns()))) {
            out.add(ReadinessProblem.permanent(CniError.EXCLUSIVE_NETNS_MODE, ifname,
                    "ib_core netns_mode is exclusive and " + p.device().name()
                            + " does not belong to this pod's namespace: RDMA CM never hands the pod a request"
                            + " (rdma_dev_access_netns)",
                    "rdma system set netns shared (and ib_core netns_mode=1 in modprobe.d),"
                            + " or move the device into the pod with `rdma dev set " + p.device().name() + " netns`"));
            return false;
        }
        return true;
    }

    private static String notOnPortMessage(TopologySnapshot snap, List<GidCheck.PortRef> ports, LinkRef ref, Link link,
            String netnsPath) {
        String lower = snap.parentOf(ref).map(p -> " on " + where(snap, p)).orElse("");
        String kind = link.kind() + lower;
        if (ports.isEmpty()) {
            return link.name() + " (" + kind + ") in " + netnsPath + " cannot use RDMA: this host has no RDMA port"
                    + " (no RDMA device in sysfs, and the cmdemux daemon defines no soft port)";
        }
        List<String> netdevs = new ArrayList<>();
        for (GidCheck.PortRef p : ports) {
            netdevs.add(p.label() + (p.port().netdev() == null ? " (InfiniBand)" : " on "
                    + where(snap, p.port().netdev())));
        }
        return link.name() + " (" + kind + ") in " + netnsPath + " is not an upper of any RDMA port's netdev ("
                + String.join(", ", netdevs) + "), so the kernel gives it no GID and RDMA CM never reaches this pod";
    }

    private static String notOnPortFix(TopologySnapshot snap, List<GidCheck.PortRef> ports, Link link) {
        List<String> masters = new ArrayList<>();
        for (GidCheck.PortRef p : ports) {
            if (p.port().roce() && p.port().netdev() != null && snap.link(p.port().netdev()) != null) {
                String n = snap.link(p.port().netdev()).name();
                if (!masters.contains(n)) {
                    masters.add(n);
                }
            }
        }
        if (masters.isEmpty()) {
            return ports.isEmpty() ? "load the NIC's RDMA driver,"
                    + " or start `cmdemux serve --rdma-port NAME=NETDEV` on the uplink the pods use"
                    : "attach the pod with an IPoIB child (or ipvlan) of the port's IPoIB interface";
        }
        String m = masters.get(0);
        String plugin = "macvlan".equals(link.kind()) || "ipvlan".equals(link.kind()) ? link.kind() : "macvlan";
        return "attach the pod with macvlan or ipvlan on " + String.join(" or ", masters) + ": set \"master\": \"" + m
                + "\" in the " + plugin + " plugin's configuration"
                + ("veth".equals(link.kind()) ? " (a veth has no lower device, so it never gets a GID)" : "");
    }

    /** "host0", or "net1@pod1" outside the host. */
    static String where(TopologySnapshot snap, LinkRef ref) {
        Link l = snap.link(ref);
        String n = l == null ? "ifindex " + ref.ifindex() : l.name();
        if (ref.netns().equals(snap.host())) {
            return n;
        }
        NetnsState s = snap.namespace(ref.netns());
        return n + "@" + (s == null ? Long.toString(ref.netns().inode()) : s.displayName());
    }
}
