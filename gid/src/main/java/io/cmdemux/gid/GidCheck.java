package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The GID problems pods run into, found from one topology and RDMA state. Pure: the caller
 * supplies the snapshot, the devices (sysfs plus soft ports) and the problems met reading them.
 */
public final class GidCheck {
    private static final int EXAMPLES = 3;

    private GidCheck() {}

    /** A port of a device, with the device's name. */
    public record PortRef(RdmaDevice device, RdmaPort port) {
        public String label() {
            return device.name() + "/" + port.number();
        }
    }

    public static List<PortRef> ports(RdmaTopology rdma) {
        List<PortRef> out = new ArrayList<>();
        for (RdmaDevice d : rdma.devices()) {
            for (RdmaPort p : d.ports()) {
                out.add(new PortRef(d, p));
            }
        }
        return out;
    }

    public static List<GidProblem> run(TopologySnapshot snap, RdmaTopology rdma, List<String> readProblems) {
        List<GidProblem> out = new ArrayList<>();
        List<PortRef> ports = ports(rdma);
        if (ports.isEmpty()) {
            out.add(new GidProblem(GidProblem.Kind.NO_RDMA_PORT, "host",
                    "no RDMA device in sysfs and no soft port, so no GID exists at all",
                    "load the NIC's RDMA driver, or define a soft port with --rdma-port NAME=NETDEV"));
        }
        notAnUpper(snap, ports, out);
        sameIp(snap, ports, out);
        pkeys(snap, ports, out);
        tables(snap, ports, out);
        exclusive(snap, rdma, ports, out);
        for (String p : readProblems) {
            GidProblem.Kind k = p.startsWith("soft port ") ? GidProblem.Kind.SOFT_PORT : GidProblem.Kind.SYSFS;
            String fix = k == GidProblem.Kind.SOFT_PORT
                    ? "check the --rdma-port netdev exists (ip link show) and the table size"
                    : "check the file named; if the kernel wrote it, "
                            + "save `cmdemux snapshot save FILE` for a bug report";
            out.add(new GidProblem(k, k == GidProblem.Kind.SOFT_PORT ? "soft port" : "sysfs", p, fix));
        }
        return out;
    }

    /** Every RoCE port's eligible devices, as the notifier path sees them. */
    private static Map<LinkRef, List<PortRef>> eligible(TopologySnapshot snap, List<PortRef> ports) {
        Map<LinkRef, List<PortRef>> out = new LinkedHashMap<>();
        for (PortRef p : ports) {
            if (p.port().roce() && p.port().netdev() != null && snap.link(p.port().netdev()) != null) {
                for (LinkRef d : RoceGidRules.eligibleNetdevs(snap, p.port().netdev(), false)) {
                    out.computeIfAbsent(d, k -> new ArrayList<>()).add(p);
                }
            }
        }
        return out;
    }

    private static void notAnUpper(TopologySnapshot snap, List<PortRef> ports, List<GidProblem> out) {
        List<PortRef> roce = ports.stream().filter(p -> p.port().roce() && p.port().netdev() != null).toList();
        if (roce.isEmpty()) {
            return;
        }
        Map<LinkRef, List<PortRef>> eligible = eligible(snap, roce);
        String netdevs = String.join(", ",
                roce.stream()
                        .map(p -> p.label() + " on " + name(snap, p.port().netdev()))
                        .toList());
        String masters = String.join(" or ",
                new LinkedHashSet<>(
                        roce.stream().map(p -> name(snap, p.port().netdev())).toList()));
        for (NetnsState ns : snap.namespaces()) {
            if (ns.id().equals(snap.host())) {
                continue;
            }
            for (Link l : ns.links().values()) {
                if (l.arphrdType() == Link.ARPHRD_LOOPBACK
                        || l.arphrdType() == Link.ARPHRD_INFINIBAND
                        || (l.flags() & Link.IFF_LOOPBACK) != 0) {
                    continue;
                }
                LinkRef me = new LinkRef(ns.id(), l.ifindex());
                List<String> ips = appAddresses(ns, l.ifindex());
                if (ips.isEmpty() || eligible.containsKey(me)) {
                    continue;
                }
                out.add(new GidProblem(GidProblem.Kind.NOT_AN_UPPER, ns.displayName() + "/" + l.name(),
                        ns.displayName() + ": " + l.name() + " (" + l.kind() + ", " + String.join(", ", ips) + ") "
                                + why(snap, me, l) + " is not an upper of any RDMA port netdev (" + netdevs
                                + "), so the kernel adds no GID for it: zero GIDs in this pod",
                        "attach the pod with macvlan or ipvlan on " + masters + " (e.g. CNI macvlan with \"master\": \""
                                + masters + "\") instead of " + l.kind()));
            }
        }
    }

    /** IPv4 and non-link-local IPv6: the addresses applications use; a bare link-local is not a configured pod. */
    private static List<String> appAddresses(NetnsState ns, int ifindex) {
        List<String> out = new ArrayList<>();
        for (Address a : ns.addresses()) {
            if (a.ifindex() == ifindex && !(a.address() instanceof Inet6Address v6 && v6.isLinkLocalAddress())) {
                out.add(a.cidr());
            }
        }
        return out;
    }

    private static String why(TopologySnapshot snap, LinkRef me, Link l) {
        if (l.kind().equals("veth")) {
            LinkRef peer = snap.parentOf(me).orElse(null);
            if (peer != null && snap.link(peer) != null) {
                String where = name(snap, peer);
                LinkRef br = snap.masterOf(peer).orElse(null);
                return "(its veth peer " + where + (br == null ? "" : " is a port of " + name(snap, br))
                        + "; a veth has no lower device)";
            }
            return "(a veth has no lower device)";
        }
        return "";
    }

    private static void sameIp(TopologySnapshot snap, List<PortRef> ports, List<GidProblem> out) {
        for (PortRef p : ports) {
            Map<String, List<GidEntry>> byGid = new LinkedHashMap<>();
            for (GidEntry e : p.port().gids()) {
                if (e.ndev() != null) {
                    byGid.computeIfAbsent(e.gid() + " " + e.type().text(), k -> new ArrayList<>()).add(e);
                }
            }
            for (List<GidEntry> same : byGid.values()) {
                Set<NetnsId> where = new HashSet<>();
                same.forEach(e -> where.add(e.ndev().netns()));
                if (where.size() < 2) {
                    continue;
                }
                same.sort(Comparator.comparingInt(GidEntry::index));
                GidEntry first = same.get(0);
                List<String> at = new ArrayList<>();
                for (GidEntry e : same) {
                    at.add("index " + e.index() + " (" + name(snap, e.ndev()) + ")");
                }
                String ip = first.gid().ip().map(InetAddresses::toText).orElse(first.gid().toString());
                out.add(new GidProblem(GidProblem.Kind.SAME_IP_IN_TWO_NAMESPACES, p.label(),
                        p.label() + ": " + ip + " (" + first.type().text() + ") is at " + String.join(" and ", at)
                                + "; the kernel matches an incoming request to the lowest index, so only "
                                + nsName(snap, first.ndev().netns())
                                + " ever receives connections to it",
                        "give each pod its own IP (check the IPAM ranges of "
                                + String.join(", ",
                                        new TreeSet<>(same.stream()
                                                .map(e -> nsName(snap, e.ndev().netns()))
                                                .toList()))
                                + ")"));
            }
        }
    }

    private static void pkeys(TopologySnapshot snap, List<PortRef> ports, List<GidProblem> out) {
        for (PortRef p : ports) {
            if (p.port().roce()) {
                continue;
            }
            for (LinkRef parent : p.port().ipoibParents()) {
                for (LinkRef child : snap.childrenOf(parent)) {
                    Link c = snap.link(child);
                    if (c == null || !(c.info() instanceof LinkInfo.Ipoib ipoib)) {
                        continue;
                    }
                    if (p.port().pkeys().indexOf(ipoib.pkey()).isPresent()) {
                        continue;
                    }
                    List<String> table = new ArrayList<>();
                    for (int k : p.port().pkeys().pkeys()) {
                        if ((k & PkeyTable.PKEY_MASK) != 0) {
                            table.add(String.format("0x%04x", k));
                        }
                    }
                    out.add(new GidProblem(GidProblem.Kind.PKEY_NOT_IN_TABLE, p.label(),
                            String.format(
                                    "%s: IPoIB child %s has P_Key 0x%04x, which is not in the port's P_Key table %s "
                                            + "(low 15 bits compared);"
                                            + " ipoib_get_net_dev_by_params finds no netdev for requests with it",
                                    p.label(), name(snap, child), ipoib.pkey(), table),
                            String.format(
                                    "add partition 0x%04x for this port in the subnet manager "
                                            + "(opensm partitions.conf), or recreate %s with a P_Key from the table",
                                    ipoib.pkey() & PkeyTable.PKEY_MASK, c.name())));
                }
            }
        }
    }

    private static void tables(TopologySnapshot snap, List<PortRef> ports, List<GidProblem> out) {
        for (PortRef p : ports) {
            if (p.device().soft()
                    || !p.port().roce()
                    || p.port().netdev() == null
                    || snap.link(p.port().netdev()) == null) {
                continue;
            }
            List<GidEntry> real = p.port().gids();
            Set<GidType> types = new java.util.TreeSet<>();
            int maxIndex = 0;
            Set<String> unresolved = new HashSet<>();
            for (GidEntry e : real) {
                types.add(e.type());
                maxIndex = Math.max(maxIndex, e.index());
                if (e.ndev() == null) {
                    unresolved.add(e.gid() + " " + e.type());
                }
            }
            Set<GidType> t = types.isEmpty() ? RoceGidRules.ROCE_V2_ONLY : types;
            List<GidEntry> computed = RoceGidRules.compute(
                    snap, p.port().netdev(), t, Math.max(RoceGidRules.RXE_GID_TABLE_LEN, maxIndex + 1));
            // Entries sysfs could not tie to one link are reported already; leave them out here.
            List<GidEntry> realKnown = real.stream().filter(e -> e.ndev() != null).toList();
            List<GidEntry> computedKnown = computed.stream()
                    .filter(e -> !unresolved.contains(e.gid() + " " + e.type()))
                    .toList();
            GidTableDiff.ContentDiff d = GidTableDiff.compareContents(computedKnown, realKnown);
            if (d.empty()) {
                continue;
            }
            StringBuilder m = new StringBuilder(p.label())
                    .append(": the kernel's GID table differs from the one its rules give for this topology");
            if (!d.onlyExpected().isEmpty()) {
                m.append("; missing: ").append(examples(d.onlyExpected()));
            }
            if (!d.onlyActual().isEmpty()) {
                m.append("; not expected: ").append(examples(d.onlyActual()));
            }
            out.add(new GidProblem(GidProblem.Kind.TABLE_DIFFERS, p.label(), m.toString(),
                    "compare with `ip -d addr` in the namespaces named; "
                            + "an entry kept after its address went away is held by an open QP"
                            + " and leaves when it closes; a missing one points to 'unable to add gid' in dmesg"));
        }
    }

    private static String examples(List<GidEntry> es) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < Math.min(EXAMPLES, es.size()); i++) {
            out.add(GidTableDiff.text(es.get(i)));
        }
        return String.join(", ", out) + (es.size() > EXAMPLES ? " and " + (es.size() - EXAMPLES) + " more" : "");
    }

    private static void exclusive(TopologySnapshot snap, RdmaTopology rdma, List<PortRef> ports, List<GidProblem> out) {
        if (rdma.netnsMode() != RdmaTopology.NetnsMode.EXCLUSIVE) {
            return;
        }
        Map<String, Set<String>> pods = new LinkedHashMap<>();
        for (PortRef p : ports) {
            if (p.device().soft()) {
                continue;
            }
            for (GidEntry e : p.port().gids()) {
                if (e.ndev() != null && !e.ndev().netns().equals(p.device().netns())) {
                    pods.computeIfAbsent(p.device().name(), k -> new TreeSet<>()).add(nsName(snap, e.ndev().netns()));
                }
            }
        }
        for (Map.Entry<String, Set<String>> e : pods.entrySet()) {
            out.add(new GidProblem(GidProblem.Kind.EXCLUSIVE_NETNS_MODE, e.getKey(),
                    "ib_core netns_mode is exclusive: " + e.getKey() + " belongs to one namespace only, yet "
                            + String.join(", ", e.getValue())
                            + " have GIDs on it; RDMA CM never hands their listeners a request (rdma_dev_access_netns)",
                    "rdma system set netns shared (and ib_core netns_mode=1 in modprobe.d to keep it)"));
        }
    }

    static String name(TopologySnapshot snap, LinkRef ref) {
        Link l = snap.link(ref);
        String n = l == null ? "ifindex " + ref.ifindex() : l.name();
        return ref.netns().equals(snap.host()) ? n : n + "@" + nsName(snap, ref.netns());
    }

    static String nsName(TopologySnapshot snap, NetnsId id) {
        NetnsState s = snap.namespace(id);
        return s == null ? id.toString() : s.host() ? "host" : s.displayName();
    }

    /** For messages: an IP in the form iproute2 prints. */
    static String text(InetAddress ip) {
        return InetAddresses.toText(ip);
    }
}
