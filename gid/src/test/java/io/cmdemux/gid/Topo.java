package io.cmdemux.gid;

import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/** Hand-built topologies for tests: namespaces, links, addresses, nsids, as the test states them. */
final class Topo {
    static final long HOST_INODE = 4026531840L;
    static final int UP = Link.IFF_UP | Link.IFF_LOWER_UP | Link.IFF_BROADCAST | Link.IFF_MULTICAST;

    private final Map<String, NetnsId> ids = new LinkedHashMap<>();
    private final Map<String, TreeMap<Integer, Link>> links = new HashMap<>();
    private final Map<String, List<Address>> addrs = new HashMap<>();
    private final Map<String, Map<Integer, NetnsId>> peers = new HashMap<>();

    Topo() {
        ns("host", HOST_INODE);
    }

    Topo ns(String name, long inode) {
        ids.put(name, new NetnsId(4, inode));
        links.put(name, new TreeMap<>());
        addrs.put(name, new ArrayList<>());
        peers.put(name, new HashMap<>());
        return this;
    }

    NetnsId id(String ns) {
        return ids.get(ns);
    }

    /** The nsid namespace {@code from} uses for {@code to}, assigned on first use. */
    private int nsid(String from, String to) {
        Map<Integer, NetnsId> p = peers.get(from);
        for (Map.Entry<Integer, NetnsId> e : p.entrySet()) {
            if (e.getValue().equals(ids.get(to))) {
                return e.getKey();
            }
        }
        int n = p.size();
        p.put(n, ids.get(to));
        return n;
    }

    /** A link with no parent and no master. */
    Topo dev(String ns, int ifindex, String name, String kind, LinkInfo info, String mac) {
        return link(ns, ifindex, name, kind, info, null, null, 0, 0, mac, Link.ARPHRD_ETHER);
    }

    /** A link whose IFLA_LINK is {@code parentIfindex} in {@code parentNs}. */
    Topo child(
            String ns,
            int ifindex,
            String name,
            String kind,
            LinkInfo info,
            String parentNs,
            int parentIfindex,
            String mac) {
        return link(ns, ifindex, name, kind, info, null, parentNs, parentIfindex, 0, mac, Link.ARPHRD_ETHER);
    }

    Topo link(
            String ns,
            int ifindex,
            String name,
            String kind,
            LinkInfo info,
            LinkInfo slaveInfo,
            String parentNs,
            int parentIfindex,
            int master,
            String mac,
            int arphrd) {
        OptionalInt nsid =
                parentNs == null || parentNs.equals(ns) ? OptionalInt.empty() : OptionalInt.of(nsid(ns, parentNs));
        links.get(ns)
                .put(ifindex,
                        new Link(
                                ifindex,
                                name,
                                List.of(),
                                kind,
                                info,
                                slaveInfo,
                                parentIfindex,
                                nsid,
                                master,
                                mac == null ? null : HwAddr.parse(mac),
                                1500,
                                UP,
                                6,
                                arphrd));
        return this;
    }

    Topo addr(String ns, int ifindex, String ip, int prefix) {
        InetAddress a = InetAddresses.parse(ip);
        addrs.get(ns)
                .add(new Address(a instanceof Inet4Address ? 2 : 10, ifindex, a, prefix, 0, Address.IFA_F_PERMANENT,
                        null, null));
        return this;
    }

    Topo peerAddr(String ns, int ifindex, String local, String peer) {
        addrs.get(ns)
                .add(new Address(2, ifindex, InetAddresses.parse(local), 32, 0, Address.IFA_F_PERMANENT, null,
                        InetAddresses.parse(peer)));
        return this;
    }

    Topo removeAddr(String ns, int ifindex, String ip) {
        InetAddress a = InetAddresses.parse(ip);
        addrs.get(ns).removeIf(x -> x.ifindex() == ifindex && x.address().equals(a));
        return this;
    }

    Topo removeNs(String ns) {
        ids.remove(ns);
        return this;
    }

    Topo removeLink(String ns, int ifindex) {
        links.get(ns).remove(ifindex);
        addrs.get(ns).removeIf(x -> x.ifindex() == ifindex);
        return this;
    }

    NetnsState state(String ns) {
        return new NetnsState(ids.get(ns), ns.equals("host") ? List.of() : List.of(ns), ns.equals("host"),
                ns.equals("host") ? -1 : 0, links.get(ns), addrs.get(ns), List.of(), peers.get(ns));
    }

    TopologySnapshot build(long generation) {
        List<NetnsState> states = new ArrayList<>();
        for (String n : ids.keySet()) {
            states.add(state(n));
        }
        return TopologySnapshot.of(generation, ids.get("host"), states, List.of());
    }

    static LinkInfo macvlan() {
        return new LinkInfo.Macvlan(LinkInfo.Macvlan.MODE_BRIDGE, 0);
    }

    static LinkInfo veth() {
        return new LinkInfo.Veth();
    }

    static LinkInfo generic(String kind) {
        return new LinkInfo.Generic(kind);
    }
}
