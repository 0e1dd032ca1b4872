package io.cmdemux.namespaces;

import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.NsidEntry;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
    /**
     * Every namespace by its id, each with its place in {@link #namespaces()}'s order (host first, then
     * discovery order). Sharded like the indexes, and for the same reason: a map of every namespace copied
     * for each generation was what an event cost at 1,000 namespaces (issue 22), a cold walk of every entry.
     */
    private final ShardedIndex<NetnsId, Slot> byId;
    private final long nextOrder;
    private volatile List<NetnsState> ordered; // made on first use; every caller gets the same list
    private final ShardedIndex<InetAddress, AddressRef> byIp;
    private final ShardedIndex<HwAddr, LinkRef> byMac;
    private final ShardedIndex<LinkRef, LinkRef> children;
    private final ShardedIndex<LinkRef, LinkRef> slaves;
    private final List<String> problems;

    private TopologySnapshot(
            long generation,
            NetnsId host,
            ShardedIndex<NetnsId, Slot> byId,
            long nextOrder,
            ShardedIndex<InetAddress, AddressRef> byIp,
            ShardedIndex<HwAddr, LinkRef> byMac,
            ShardedIndex<LinkRef, LinkRef> children,
            ShardedIndex<LinkRef, LinkRef> slaves,
            List<String> problems) {
        this.generation = generation;
        this.host = host;
        this.byId = byId;
        this.nextOrder = nextOrder;
        this.byIp = byIp;
        this.byMac = byMac;
        this.children = children;
        this.slaves = slaves;
        this.problems = problems;
    }

    /** Decodes raw dumps into a snapshot. Undecodable messages are skipped and listed in {@link #problems()}. */
    public static TopologySnapshot build(long generation, NetnsId host, List<NamespaceDump> dumps) {
        Map<Integer, NetnsId> byHostNsid = new HashMap<>();
        for (NamespaceDump d : dumps) {
            if (d.hostNsid() >= 0) {
                byHostNsid.put(d.hostNsid(), d.id()); // the host too, when it has an nsid for itself
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
        ShardedIndex.Editor<NetnsId, Slot> ids = ShardedIndex.<NetnsId, Slot>empty().edit();
        Indexes ix = new Indexes(ShardedIndex.<InetAddress, AddressRef>empty().edit(),
                ShardedIndex.<HwAddr, LinkRef>empty().edit(), ShardedIndex.<LinkRef, LinkRef>empty().edit(),
                ShardedIndex.<LinkRef, LinkRef>empty().edit());
        long order = 0;
        for (NetnsState s : ns.values()) {
            ids.add(s.id(), new Slot(order++, s));
            ix.index(s, true);
        }
        return new TopologySnapshot(generation, host, ids.done(), order, ix.ip.done(), ix.mac.done(), ix.ch.done(),
                ix.sl.done(), List.copyOf(problems));
    }

    /**
     * These namespaces as a fresh {@link #build} from a discovery scan lists them ({@link NetnsDiscovery#ORDER}),
     * at the generation given: a snapshot that a watcher has carried forward lists them in the order they
     * appeared, and a CLI verb answered by the daemon must print what the one-shot verb would.
     */
    public TopologySnapshot inScanOrder(long newGeneration) {
        List<NetnsState> states = new ArrayList<>(namespaces());
        states.sort(NetnsDiscovery.order(NetnsState::host, NetnsState::names, NetnsState::id));
        return of(newGeneration, host, states, problems);
    }

    /** A namespace and its place in the order of {@link #namespaces()}. */
    private record Slot(long order, NetnsState state) {}

    /**
     * A new generation in which some namespaces are replaced or added and others removed. The
     * indexes are patched for just those namespaces, not rebuilt.
     */
    public TopologySnapshot with(long newGeneration, Collection<NetnsState> changed, Collection<NetnsId> removed) {
        ShardedIndex.Editor<NetnsId, Slot> ids = byId.edit();
        Map<NetnsId, Slot> now = new HashMap<>(); // this edit's, since the editor cannot be read
        Indexes ix = new Indexes(byIp.edit(), byMac.edit(), children.edit(), slaves.edit());
        long order = nextOrder;
        for (NetnsId id : removed) {
            Slot old = slot(id, now);
            if (!id.equals(host) && old != null) {
                ids.remove(id, old);
                now.put(id, null);
                ix.index(old.state(), false);
            }
        }
        for (NetnsState state : changed) {
            Slot old = slot(state.id(), now);
            Slot next = new Slot(old != null ? old.order() : order++, state); // a replaced one keeps its place
            if (old != null) {
                ids.remove(state.id(), old);
                ix.reindex(old.state(), state);
            } else {
                ix.index(state, true);
            }
            ids.add(state.id(), next);
            now.put(state.id(), next);
        }
        return new TopologySnapshot(newGeneration, host, ids.done(), order, ix.ip.done(), ix.mac.done(), ix.ch.done(),
                ix.sl.done(), problems);
    }

    private Slot slot(NetnsId id, Map<NetnsId, Slot> edited) {
        if (edited.containsKey(id)) {
            return edited.get(id);
        }
        List<Slot> s = byId.get(id);
        return s.isEmpty() ? null : s.get(0);
    }

    /** What changed from {@code before} to this snapshot: namespaces added or replaced, and those removed. */
    public record Changes(List<NetnsState> changed, List<NetnsId> removed) {}

    /**
     * The namespaces whose state is not the very one {@code before} has (added or replaced), and those it has
     * that this one does not. Its cost follows what changed between the two, not the number of namespaces,
     * when this snapshot descends from {@code before} by {@link #with}; against any other it is still right.
     */
    public Changes changesSince(TopologySnapshot before) {
        List<NetnsState> changed = new ArrayList<>();
        List<NetnsId> removed = new ArrayList<>();
        for (NetnsId id : byId.keysChangedSince(before.byId)) {
            NetnsState now = namespace(id);
            NetnsState then = before.namespace(id);
            if (now == null) {
                removed.add(id);
            } else if (now != then) {
                changed.add(now);
            }
        }
        return new Changes(changed, removed);
    }

    /** The cross-namespace indexes of the next snapshot while it is being made. */
    private record Indexes(ShardedIndex.Editor<InetAddress, AddressRef> ip, ShardedIndex.Editor<HwAddr, LinkRef> mac,
            ShardedIndex.Editor<LinkRef, LinkRef> ch, ShardedIndex.Editor<LinkRef, LinkRef> sl) {

        /** Adds (or removes) one namespace's contributions. */
        void index(NetnsState s, boolean add) {
            Entries e = Entries.of(s);
            edit(ip, e.ip, add);
            edit(mac, e.mac, add);
            edit(ch, e.ch, add);
            edit(sl, e.sl, add);
        }

        private static <K, V> void edit(ShardedIndex.Editor<K, V> e, List<Map.Entry<K, V>> entries, boolean add) {
            for (Map.Entry<K, V> x : entries) {
                if (add) {
                    e.add(x.getKey(), x.getValue());
                } else {
                    e.remove(x.getKey(), x.getValue());
                }
            }
        }

        /**
         * Replaces {@code old}'s contributions with {@code now}'s, touching only those that differ: an entry
         * both have keeps its place. A host veth with a macvlan in each of 1,000 pods has 1,000 children, and
         * taking a pod's out and putting them back for an address change copied and searched that list.
         */
        void reindex(NetnsState old, NetnsState now) {
            Entries before = Entries.of(old);
            Entries after = Entries.of(now);
            patch(ip, before.ip, after.ip);
            patch(mac, before.mac, after.mac);
            patch(ch, before.ch, after.ch);
            patch(sl, before.sl, after.sl);
        }

        /** Removes what only {@code before} has and adds what only {@code after} has, counting repeats. */
        private static <K, V> void patch(ShardedIndex.Editor<K, V> e, List<Map.Entry<K, V>> before,
                List<Map.Entry<K, V>> after) {
            Map<Map.Entry<K, V>, Integer> surplus = new HashMap<>(); // before's count minus after's
            for (Map.Entry<K, V> x : before) {
                surplus.merge(x, 1, Integer::sum);
            }
            for (Map.Entry<K, V> x : after) {
                surplus.merge(x, -1, Integer::sum);
            }
            surplus.forEach((x, n) -> {
                for (int i = 0; i < n; i++) {
                    e.remove(x.getKey(), x.getValue());
                }
            });
            for (Map.Entry<K, V> x : after) { // in after's order, as index() adds them
                Integer n = surplus.get(x);
                if (n != null && n < 0) {
                    e.add(x.getKey(), x.getValue());
                    surplus.put(x, n + 1);
                }
            }
        }
    }

    /** One namespace's entries in each of the four indexes. */
    private record Entries(List<Map.Entry<InetAddress, AddressRef>> ip, List<Map.Entry<HwAddr, LinkRef>> mac,
            List<Map.Entry<LinkRef, LinkRef>> ch, List<Map.Entry<LinkRef, LinkRef>> sl) {

        static Entries of(NetnsState s) {
            Entries e = new Entries(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            for (Address a : s.addresses()) {
                e.ip.add(Map.entry(a.address(), new AddressRef(new LinkRef(s.id(), a.ifindex()), a)));
            }
            for (Link l : s.links().values()) {
                LinkRef me = new LinkRef(s.id(), l.ifindex());
                if (l.mac() != null && !allZero(l.mac())) { // every loopback has 00:00:00:00:00:00
                    e.mac.add(Map.entry(l.mac(), me));
                }
                if (l.hasParent()) {
                    NetnsId where = l.parentNsid().isPresent() ? s.peers().get(l.parentNsid().getAsInt()) : s.id();
                    if (where != null) {
                        e.ch.add(Map.entry(new LinkRef(where, l.parentIfindex()), me));
                    }
                }
                if (l.masterIfindex() != 0) {
                    e.sl.add(Map.entry(new LinkRef(s.id(), l.masterIfindex()), me));
                }
            }
            return e;
        }
    }

    private static boolean allZero(HwAddr mac) {
        for (int i = 0; i < mac.length(); i++) {
            if (mac.get(i) != 0) {
                return false;
            }
        }
        return true;
    }

    private static NetnsState decode(
            NamespaceDump d, boolean isHost, NetnsId host, Map<Integer, NetnsId> byHostNsid, List<String> problems) {
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
     * nsid for the same peer; -1 there means the host has none for it, which is the host itself
     * (unless the host has an nsid for itself: then that nsid, in {@code byHostNsid}, names it).
     */
    static NetnsId resolvePeer(NsidEntry e, boolean isHost, NetnsId host, Map<Integer, NetnsId> byHostNsid) {
        if (isHost) {
            return byHostNsid.get(e.nsid());
        }
        if (e.currentNsid().isEmpty()) {
            return null;
        }
        int c = e.currentNsid().getAsInt();
        return c < 0 ? host : byHostNsid.getOrDefault(c, null);
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

    /** Host first, then in the order they were discovered; the same list on every call. */
    public List<NetnsState> namespaces() {
        List<NetnsState> o = ordered;
        if (o == null) {
            List<Slot> all = new ArrayList<>();
            byId.forEach((id, slots) -> all.addAll(slots));
            all.sort(java.util.Comparator.comparingLong(Slot::order));
            o = all.stream().map(Slot::state).toList();
            ordered = o;
        }
        return o;
    }

    public NetnsState namespace(NetnsId id) {
        List<Slot> s = byId.get(id);
        return s.isEmpty() ? null : s.get(0).state();
    }

    public NetnsState hostState() {
        return namespace(host);
    }

    /** By a name under /run/netns, "host"/"init" for the host, or an inode number. */
    public Optional<NetnsState> findNamespace(String nameOrInode) {
        if (nameOrInode.equals("host") || nameOrInode.equals("init")) {
            return Optional.of(hostState());
        }
        for (NetnsState s : namespaces()) {
            if (s.names().contains(nameOrInode) || Long.toString(s.id().inode()).equals(nameOrInode)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    public Link link(LinkRef ref) {
        NetnsState s = namespace(ref.netns());
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
        NetnsId where = namespace(ref.netns()).peers().get(l.parentNsid().getAsInt());
        return where == null ? Optional.empty() : Optional.of(new LinkRef(where, l.parentIfindex()));
    }

    public Optional<LinkRef> masterOf(LinkRef ref) {
        Link l = link(ref);
        return l == null || l.masterIfindex() == 0
                ? Optional.empty()
                : Optional.of(new LinkRef(ref.netns(), l.masterIfindex()));
    }

    /** Links whose IFLA_LINK names this one, in any namespace (macvlans, vlans, veth peers, vxlans...). */
    public List<LinkRef> childrenOf(LinkRef ref) {
        return children.get(ref);
    }

    /** Ports of a bond or bridge. */
    public List<LinkRef> slavesOf(LinkRef ref) {
        return slaves.get(ref);
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

    /** Every link with this hardware address, in any namespace. */
    public List<LinkRef> byMac(HwAddr mac) {
        return byMac.get(mac);
    }

    /** Every link that holds this address, in any namespace. */
    public List<AddressRef> byIp(InetAddress ip) {
        return byIp.get(ip);
    }

    public List<String> problems() {
        return problems;
    }

    public int linkCount() {
        int n = 0;
        for (NetnsState s : namespaces()) {
            n += s.links().size();
        }
        return n;
    }
}
