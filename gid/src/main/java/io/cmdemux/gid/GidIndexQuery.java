package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * The GID index a pod must use for one of its IPs (what NCCL_IB_GID_INDEX needs), or why there
 * is none. Pure.
 */
public final class GidIndexQuery {
    private GidIndexQuery() {}

    public record Match(String device, int port, GidEntry entry) {}

    /**
     * @param index the one index every match shares, or empty when there is no match or the
     *     ports disagree
     * @param reason why there is no index; null when there is one
     * @param warnings matches that are real but lose to a lower index of another namespace
     */
    public record Answer(
            NetnsState netns,
            InetAddress ip,
            GidType type,
            List<Match> matches,
            OptionalInt index,
            String reason,
            List<String> warnings) {
        public Answer {
            matches = List.copyOf(matches);
            warnings = List.copyOf(warnings);
        }
    }

    public static Answer find(TopologySnapshot snap, RdmaTopology rdma, NetnsState ns, InetAddress ip, GidType type) {
        Gid gid = Gid.ofIp(ip);
        List<Match> matches = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (GidCheck.PortRef p : GidCheck.ports(rdma)) {
            GidEntry best = null;
            for (GidEntry e : p.port().gids()) {
                if (e.gid().equals(gid)
                        && e.type() == type
                        && e.ndev() != null
                        && e.ndev().netns().inode() == ns.id().inode()) {
                    if (best == null || e.index() < best.index()) {
                        best = e;
                    }
                }
            }
            if (best == null) {
                continue;
            }
            matches.add(new Match(p.device().name(), p.port().number(), best));
            for (GidEntry e : p.port().gids()) {
                if (e.gid().equals(gid) && e.type() == type && e.index() < best.index() && e.ndev() != null
                        && e.ndev().netns().inode() != ns.id().inode()) {
                    warnings.add(p.label() + ": index " + e.index() + " (" + GidCheck.name(snap, e.ndev())
                            + ") holds the same GID and is lower;" + " incoming requests to " + InetAddresses.toText(ip)
                            + " match it, not index " + best.index());
                    break;
                }
            }
        }
        if (!matches.isEmpty()) {
            int first = matches.get(0).entry().index();
            boolean same = matches.stream().allMatch(m -> m.entry().index() == first);
            return new Answer(
                    ns, ip, type, matches, same ? OptionalInt.of(first) : OptionalInt.empty(), null, warnings);
        }
        return new Answer(ns, ip, type, matches, OptionalInt.empty(), whyNone(snap, rdma, ns, ip, type), warnings);
    }

    private static String whyNone(
            TopologySnapshot snap, RdmaTopology rdma, NetnsState ns, InetAddress ip, GidType type) {
        String where = ns.host() ? "the host" : "netns " + ns.displayName();
        List<GidCheck.PortRef> roce = GidCheck.ports(rdma).stream().filter(p -> p.port().roce()).toList();
        if (roce.isEmpty()) {
            return "there is no RoCE port (no RDMA device in sysfs and no --rdma-port), so there are no GIDs at all";
        }
        List<LinkRef> owners = new ArrayList<>();
        for (Link l : ns.links().values()) {
            if (RoceGidRules.gidAddresses(ns, l.ifindex()).contains(ip)) {
                owners.add(new LinkRef(ns.id(), l.ifindex()));
            }
        }
        if (owners.isEmpty()) {
            List<String> have = new ArrayList<>();
            ns.addresses().forEach(a -> have.add(a.cidr()));
            return InetAddresses.toText(ip) + " is not configured in " + where + " (its addresses: "
                    + (have.isEmpty() ? "none" : String.join(", ", have)) + ")";
        }
        for (LinkRef o : owners) {
            Link l = snap.link(o);
            boolean eligibleSomewhere = false;
            for (GidCheck.PortRef p : roce) {
                if (p.port().netdev() != null && snap.link(p.port().netdev()) != null
                        && RoceGidRules.eligibleNetdevs(snap, p.port().netdev(), false).contains(o)) {
                    eligibleSomewhere = true;
                    if (p.port().gids().stream().noneMatch(e -> e.type() == type)) {
                        return p.label() + " has no " + type.text() + " GIDs; ask for --type "
                                + (type == GidType.ROCE_V2 ? "v1" : "v2") + " or define the port with both types";
                    }
                }
            }
            if (!eligibleSomewhere) {
                List<String> netdevs = roce.stream()
                        .filter(p -> p.port().netdev() != null)
                        .map(p -> p.label() + " on "
                                + GidCheck.name(snap, p.port().netdev()))
                        .toList();
                return l.name() + " (" + l.kind() + ") in " + where + " holds " + InetAddresses.toText(ip)
                        + " but is not an upper of any RDMA port netdev (" + String.join(", ", netdevs)
                        + "), so the kernel adds no GID for it; "
                        + "attach the pod with macvlan or ipvlan on the port's netdev";
            }
        }
        return "no " + type.text() + " GID for " + InetAddresses.toText(ip) + " on " + where
                + " in any port's table (a full table drops new GIDs; see `cmdemux gids check`)";
    }
}
