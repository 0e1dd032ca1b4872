package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A namespace's own RDMA interfaces, as a pod asks for them (`cmdemux-env`, QUERY self): every link of
 * the namespace that sits on an RDMA port, with the port's GID entries whose ndev it is and the index a
 * library should use per GID type. Pure.
 *
 * <p>The chosen index per type is the lowest one of that type on the interface, IPv4 GIDs first, then
 * global IPv6, then link-local: NCCL's default address family is AF_INET (NCCL_IB_ADDR_FAMILY), and the
 * lowest entry is the one rdma_find_gid_by_filter matches for incoming requests.
 */
public final class OwnInterfaces {
    private OwnInterfaces() {}

    /** Kinds an IPoIB child may sit under in a pod (ipoib_get_net_dev_by_params follows ipvlan uppers too). */
    private static final Set<String> IB_STACKABLE = Set.of("ipvlan", "ipoib");

    /**
     * @param gids the port's entries whose ndev is this link, in index order; on an IB port, the port
     *     GID (index 0), which an IPoIB child's hardware address carries
     * @param chosen the index to use per GID type; a type with no entry is absent
     * @param warnings chosen entries another namespace shadows with the same GID at a lower index
     */
    public record Interface(String ifname, int ifindex, String kind, String device, int port, boolean roce,
            List<GidEntry> gids, Map<GidType, Integer> chosen, List<String> warnings) {
        public Interface {
            gids = List.copyOf(gids);
            chosen = chosen.isEmpty() ? Map.of() : new EnumMap<>(chosen);
            warnings = List.copyOf(warnings);
        }
    }

    /** The interfaces of {@code netns}, ordered by port (device order) then ifindex; empty when it has none. */
    public static List<Interface> of(TopologySnapshot snap, RdmaTopology rdma, NetnsId netns) {
        NetnsState ns = snap.namespace(netns);
        List<Interface> out = new ArrayList<>();
        if (ns == null) {
            return out;
        }
        for (GidCheck.PortRef p : GidCheck.ports(rdma)) {
            Set<Integer> ifindexes = new LinkedHashSet<>();
            if (p.port().roce()) {
                if (p.port().netdev() != null && snap.link(p.port().netdev()) != null) {
                    for (LinkRef r : RoceGidRules.eligibleNetdevs(snap, p.port().netdev(), false)) {
                        if (r.netns().equals(netns)) {
                            ifindexes.add(r.ifindex());
                        }
                    }
                }
                // A kernel table read from sysfs may name ndevs the rules above do not (a device's own policy).
                for (GidEntry e : p.port().gids()) {
                    if (e.ndev() != null && e.ndev().netns().equals(netns)) {
                        ifindexes.add(e.ndev().ifindex());
                    }
                }
            } else {
                for (Link l : ns.links().values()) {
                    if (ipoibChildOf(snap, p.port(), new LinkRef(netns, l.ifindex()))) {
                        ifindexes.add(l.ifindex());
                    }
                }
            }
            List<Integer> sorted = new ArrayList<>(ifindexes);
            sorted.sort(Integer::compare);
            for (int ifindex : sorted) {
                Link l = ns.link(ifindex);
                if (l != null) {
                    out.add(iface(snap, p, new LinkRef(netns, ifindex), l));
                }
            }
        }
        return out;
    }

    private static Interface iface(TopologySnapshot snap, GidCheck.PortRef p, LinkRef ref, Link l) {
        List<GidEntry> mine = new ArrayList<>();
        for (GidEntry e : p.port().gids()) {
            if (p.port().roce() ? ref.equals(e.ndev()) : e.index() == 0 && e.type() == GidType.IB) {
                mine.add(e);
            }
        }
        Map<GidType, Integer> chosen = new EnumMap<>(GidType.class);
        Map<GidType, Integer> rank = new EnumMap<>(GidType.class);
        for (GidEntry e : mine) {
            int r = rank(e.gid());
            Integer best = rank.get(e.type());
            if (best == null || r < best) {
                rank.put(e.type(), r);
                chosen.put(e.type(), e.index());
            }
        }
        List<String> warnings = new ArrayList<>();
        for (Map.Entry<GidType, Integer> c : chosen.entrySet()) {
            GidEntry e = p.port().gid(c.getValue()).orElseThrow();
            for (GidEntry lower : p.port().entriesFor(e.gid())) {
                if (lower.type() == e.type() && lower.index() < e.index() && lower.ndev() != null
                        && !lower.ndev().netns().equals(ref.netns())) {
                    warnings.add(p.label() + ": index " + lower.index() + " (" + GidCheck.name(snap, lower.ndev())
                            + ") holds the same " + e.type().text() + " GID " + e.gid() + " and is lower; requests to "
                            + ipText(e.gid()) + " match it, not index " + e.index());
                    break;
                }
            }
        }
        return new Interface(l.name(), l.ifindex(), l.kind(), p.device().name(), p.port().number(), p.port().roce(),
                mine, chosen, warnings);
    }

    /** 0 IPv4, 1 global IPv6, 2 link-local (and default GIDs), 3 anything else. */
    private static int rank(Gid gid) {
        InetAddress ip = gid.ip().orElse(null);
        if (ip instanceof Inet4Address) {
            return 0;
        }
        if (ip == null) {
            return 3;
        }
        return ip.isLinkLocalAddress() ? 2 : 1;
    }

    private static String ipText(Gid gid) {
        return gid.ip().map(InetAddresses::toText).orElse(gid.toString());
    }

    /** Whether the link is an IPoIB device of this IB port, or an ipvlan on one (its parent chain reaches the port). */
    private static boolean ipoibChildOf(TopologySnapshot snap, RdmaPort port, LinkRef ref) {
        Set<LinkRef> parents = new HashSet<>(port.ipoibParents());
        boolean sawIpoib = false;
        Set<LinkRef> seen = new HashSet<>();
        LinkRef cur = ref;
        while (cur != null && seen.add(cur)) {
            Link l = snap.link(cur);
            if (l == null) {
                return false;
            }
            sawIpoib |= l.info() instanceof LinkInfo.Ipoib;
            if (parents.contains(cur)) {
                return sawIpoib;
            }
            if (!IB_STACKABLE.contains(l.kind())) {
                return false;
            }
            cur = snap.parentOf(cur).orElse(null);
        }
        return false;
    }
}
