package io.cmdemux.namespaces;

import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.NsidEntry;
import io.cmdemux.netdev.Route;
import io.cmdemux.netdev.Rtnl;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Every namespace's links, addresses, routes and nsids at one moment, with indexes across
 * namespaces. Immutable; a watcher publishes a new one, with a higher generation, on each change.
 */
public final class TopologySnapshot {
    /**
     * Kinds whose IFLA_LINK is a lower device in the kernel's adjacency lists (netdev_upper_dev_link).
     * A veth's IFLA_LINK is its peer and a vxlan's is its underlay: neither is an upper of it.
     */
    public static final Set<String> UPPER_KINDS = Set.of("macvlan", "macvtap", "ipvlan", "ipvtap", "vlan", "macsec");

    private final long generation;
    private final NetnsId host;
    private final Map<NetnsId, NetnsState> namespaces; // host first, then discovery order
    private final Map<InetAddress, List<AddressRef>> byIp;
    private final Map<LinkRef, List<LinkRef>> children;
    private final Map<LinkRef, List<LinkRef>> slaves;
    private final List<String> problems;

    private TopologySnapshot(long generation, NetnsId host, Map<NetnsId, NetnsState> namespaces,
            Map<InetAddress, List<AddressRef>> byIp, Map<LinkRef, List<LinkRef>> children,
            Map<LinkRef, List<LinkRef>> slaves, List<String> problems) {
        this.generation = generation;
        this.host = host;
        this.namespaces = namespaces;
        this.byIp = byIp;
        this.children = children;
        this.slaves = slaves;
        this.problems = problems;
    }

    /** Decodes raw dumps into a snapshot. Undecodable messages are skipped and listed in {@link #problems()}. */
    public static TopologySnapshot build(long generation, NetnsId host, List<NamespaceDump> dumps) {
        Map<Integer, NetnsId> byHostNsid = new HashMap<>();
        for (NamespaceDump d : dumps) {
            if (d.hostNsid() >= 0) { // the host too, when it has an nsid for itself
                byHostNsid.put(d.hostNsid(), d.id());
            }
        }
        List<String> problems = new ArrayList<>();
        List<NetnsState> states = new ArrayList<>(dumps.size());
        for (NamespaceDump d : dumps) {
            states.add(decode(d, d.id().equals(host), host, byHostNsid, problems));
        }
        return of(generation, host, states, problems);
    }

    /** Builds the indexes over already decoded states. The host's state must be among them. */
    public static TopologySnapshot of(long generation, NetnsId host, List<NetnsState> states, List<String> problems) {
        Map<NetnsId, NetnsState> ns = new LinkedHashMap<>();
        for (NetnsState s : states) {
            if (s.id().equals(host)) {
                ns.put(s.id(), s);
            }
        }
        for (NetnsState s : states) {
            ns.putIfAbsent(s.id(), s);
        }
        Map<InetAddress, List<AddressRef>> byIp = new HashMap<>();
        Map<LinkRef, List<LinkRef>> children = new HashMap<>();
        Map<LinkRef, List<LinkRef>> slaves = new HashMap<>();
        for (NetnsState s : ns.values()) {
            index(s, byIp, children, slaves, true);
        }
        return new TopologySnapshot(generation, host, ns, freeze(byIp), freeze(children), freeze(slaves), List.copyOf(problems));
    }

    /**
     * A new generation in which some namespaces are replaced or added and others removed. The
     * indexes are patched for just those namespaces, not rebuilt.
     */
    public TopologySnapshot with(long newGeneration, Collection<NetnsState> changed, Collection<NetnsId> removed) {
        Map<NetnsId, NetnsState> ns = new LinkedHashMap<>(namespaces);
        Map<InetAddress, List<AddressRef>> ip = new HashMap<>(byIp);
        Map<LinkRef, List<LinkRef>> ch = new HashMap<>(children);
        Map<LinkRef, List<LinkRef>> sl = new HashMap<>(slaves);
        for (NetnsId id : removed) {
            if (!id.equals(host)) {
                NetnsState old = ns.remove(id);
                if (old != null) {
                    index(old, ip, ch, sl, false);
                }
            }
        }
        for (NetnsState state : changed) {
            NetnsState old = ns.put(state.id(), state);
            if (old != null) {
                index(old, ip, ch, sl, false);
            }
            index(state, ip, ch, sl, true);
        }
        return new TopologySnapshot(newGeneration, host, ns, ip, ch, sl, problems);
    }

    /** Adds (or removes) one namespace's contributions to the cross-namespace indexes. */
    private static void index(NetnsState s, Map<InetAddress, List<AddressRef>> byIp,
            Map<LinkRef, List<LinkRef>> children, Map<LinkRef, List<LinkRef>> slaves, boolean add) {
        for (Address a : s.addresses()) {
            edit(byIp, a.address(), new AddressRef(new LinkRef(s.id(), a.ifindex()), a), add);
        }
        for (Link l : s.links().values()) {
            LinkRef me = new LinkRef(s.id(), l.ifindex());
            if (l.hasParent()) {
                NetnsId where = l.parentNsid().isPresent() ? s.peers().get(l.parentNsid().getAsInt()) : s.id();
                if (where != null) {
                    edit(children, new LinkRef(where, l.parentIfindex()), me, add);
                }
            }
            if (l.masterIfindex() != 0) {
                edit(slaves, new LinkRef(s.id(), l.masterIfindex()), me, add);
            }
        }
    }

    private static <K, V> void edit(Map<K, List<V>> m, K key, V value, boolean add) {
        List<V> cur = m.get(key);
        List<V> next = new ArrayList<>(cur == null ? List.of() : cur);
        if (add) {
            next.add(value);
        } else {
            next.remove(value);
        }
        if (next.isEmpty()) {
            m.remove(key);
        } else {
            m.put(key, Collections.unmodifiableList(next));
        }
    }

    private static <K, V> Map<K, List<V>> freeze(Map<K, List<V>> m) {
        m.replaceAll((k, v) -> Collections.unmodifiableList(v));
        return m;
    }

    private static NetnsState decode(NamespaceDump d, boolean isHost, NetnsId host, Map<Integer, NetnsId> byHostNsid, List<String> problems) {
        NamespaceBuilder b = new NamespaceBuilder(d.id(), d.names(), isHost, d.hostNsid());
        NamespaceBuilder.PeerResolver peers = e -> resolvePeer(e, isHost, host, byHostNsid);
        int i = 0;
        for (byte[] raw : d.messages()) {
            i++;
            try {
                b.apply(NlMessage.of(raw), peers);
            } catch (MalformedException e) {
                problems.add(label(d) + ": message " + i + ": " + e.getMessage());
            }
        }
        return b.toState();
    }

    /**
     * For the host, an nsid names the namespace that has it as hostNsid. For another namespace the
     * dump was asked from the host with NETNSA_TARGET_NSID, so NETNSA_CURRENT_NSID gives the host's
     * nsid for the same peer; -1 there means the host has none for it, which is the host itself.
     */
    static NetnsId resolvePeer(NsidEntry e, boolean isHost, NetnsId host, Map<Integer, NetnsId> byHostNsid) {
        if (isHost) {
            return byHostNsid.get(e.nsid());
        }
        if (e.currentNsid().isEmpty()) {
            return null;
        }
        int c = e.currentNsid().getAsInt();
        return c < 0 ? host : byHostNsid.get(c);
    }

    private static String label(NamespaceDump d) {
        return d.names().isEmpty() ? "netns " + d.id().inode() : d.names().get(0);
    }

    // ---- queries ----

    public long generation() {
        return generation;
    }

    public NetnsId host() {
        return host;
    }

    public List<NetnsState> namespaces() {
        return List.copyOf(namespaces.values());
    }

    public NetnsState namespace(NetnsId id) {
        return namespaces.get(id);
    }

    public NetnsState hostState() {
        return namespaces.get(host);
    }

    /** By a name under /run/netns, "host"/"init" for the host, or an inode number. */
    public Optional<NetnsState> findNamespace(String nameOrInode) {
        if (nameOrInode.equals("host") || nameOrInode.equals("init")) {
            return Optional.of(hostState());
        }
        for (NetnsState s : namespaces.values()) {
            if (s.names().contains(nameOrInode) || Long.toString(s.id().inode()).equals(nameOrInode)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    public Link link(LinkRef ref) {
        NetnsState s = namespaces.get(ref.netns());
        return s == null ? null : s.link(ref.ifindex());
    }

    /** Where IFLA_LINK points, across namespaces; empty if there is no parent or its nsid is unknown. */
    public Optional<LinkRef> parentOf(LinkRef ref) {
        Link l = link(ref);
        if (l == null || !l.hasParent()) {
            return Optional.empty();
        }
        if (l.parentNsid().isEmpty()) {
            return Optional.of(new LinkRef(ref.netns(), l.parentIfindex()));
        }
        NetnsId where = namespaces.get(ref.netns()).peers().get(l.parentNsid().getAsInt());
        return where == null ? Optional.empty() : Optional.of(new LinkRef(where, l.parentIfindex()));
    }

    public Optional<LinkRef> masterOf(LinkRef ref) {
        Link l = link(ref);
        return l == null || l.masterIfindex() == 0 ? Optional.empty() : Optional.of(new LinkRef(ref.netns(), l.masterIfindex()));
    }

    /** Links whose IFLA_LINK names this one, in any namespace (macvlans, vlans, veth peers, vxlans...). */
    public List<LinkRef> childrenOf(LinkRef ref) {
        return children.getOrDefault(ref, List.of());
    }

    /** Ports of a bond or bridge. */
    public List<LinkRef> slavesOf(LinkRef ref) {
        return slaves.getOrDefault(ref, List.of());
    }

    /**
     * The kernel's upper devices of a link: its master, and the macvlan/ipvlan/vlan/macsec links
     * stacked on it, in any namespace.
     */
    public List<LinkRef> uppersOf(LinkRef ref) {
        List<LinkRef> out = new ArrayList<>();
        masterOf(ref).ifPresent(out::add);
        for (LinkRef c : childrenOf(ref)) {
            Link l = link(c);
            if (l != null && UPPER_KINDS.contains(l.kind())) {
                out.add(c);
            }
        }
        return out;
    }

    /** Every link that holds this address, in any namespace. */
    public List<AddressRef> byIp(InetAddress ip) {
        return byIp.getOrDefault(ip, List.of());
    }

    public List<String> problems() {
        return problems;
    }

    public int linkCount() {
        int n = 0;
        for (NetnsState s : namespaces.values()) {
            n += s.links().size();
        }
        return n;
    }
}
