package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.TopologyWatcher;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.Link;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A soft RoCE port whose GID table is kept the way the kernel keeps a real one: the first
 * snapshot enumerates like a device registering now (rdma_roce_rescan_port); every later snapshot
 * is diffed against the one before and turned into the events roce_gid_mgmt.c would have
 * issued, which are applied to the same {@link GidCache}. Slots freed by a delete are reused
 * lowest-first, so indices depend on the history, as they do in the kernel.
 *
 * <p>Within one generation, deletes are applied before adds, and adds follow the enumeration
 * order (the port's netdev, then its uppers by namespace and ifindex; per device IPv4 before
 * IPv6). The kernel sees the real order; when a delete and an add land in the same generation
 * the add may take a slot the kernel would not have freed yet. A watcher's generations are
 * usually one change each, and {@link RoceGidRules#replay} takes an exact history.
 *
 * <p>Thread-safe: updates are serialised; readers get immutable {@link RdmaDevice}s.
 */
public final class SoftRocePort {
    /** rxe_query_pkey: a RoCE port has one P_Key, the default full-member 0xffff. */
    public static final PkeyTable ROCE_PKEYS = new PkeyTable(List.of(0xffff));
    /** ib_port_state as sysfs prints it (state_show). */
    public static final String STATE_ACTIVE = "4: ACTIVE";
    public static final String STATE_DOWN = "1: DOWN";

    private record DevView(HwAddr mac, List<InetAddress> ips) {}

    private final SoftPortSpec spec;
    private final CopyOnWriteArrayList<Consumer<RdmaDevice>> listeners = new CopyOnWriteArrayList<>();

    // guarded by this
    private GidCache cache;
    private LinkRef portNetdev;
    private TopologySnapshot prev;
    private Map<LinkRef, DevView> views = new LinkedHashMap<>();
    private Map<NetnsId, List<LinkRef>> viewsByNs = new HashMap<>();
    private Map<LinkRef, HwAddr> defaults = new LinkedHashMap<>();
    private GidEntry[] published;
    private GidList publishedList; // published's entries, with their index by GID
    private List<GidEvent> lastEvents = List.of();
    private boolean attached;

    private volatile RdmaDevice device;
    private volatile List<String> problems = List.of();

    public SoftRocePort(SoftPortSpec spec) {
        this.spec = Objects.requireNonNull(spec, "spec");
        reset();
    }

    /** The table a device registered now on this topology shows; no history. */
    public static RdmaDevice compute(SoftPortSpec spec, TopologySnapshot snap) {
        SoftRocePort p = new SoftRocePort(spec);
        p.update(snap);
        return p.device();
    }

    /**
     * The table after a history of topologies, each one diffed against the one before, as the
     * daemon sees the watcher's generations: what a kernel with the same history shows. For the
     * kernel lab's recordings, whose steps are known one by one.
     */
    public static List<GidEntry> tableAfter(SoftPortSpec spec, List<TopologySnapshot> history) {
        SoftRocePort p = new SoftRocePort(spec);
        for (TopologySnapshot s : history) {
            p.update(s);
        }
        return p.device() == null ? List.of() : p.device().ports().get(0).gids();
    }

    public SoftPortSpec spec() {
        return spec;
    }

    /** The current device with its one port; null before the first update. */
    public RdmaDevice device() {
        return device;
    }

    /** Why the port has no table (its netdev is missing) or lost entries (table full). */
    public List<String> problems() {
        return problems;
    }

    /** The events the last update applied, in order. */
    public synchronized List<GidEvent> lastEvents() {
        return lastEvents;
    }

    /** Called after each update that changed the device; must be quick. */
    public void addListener(Consumer<RdmaDevice> listener) {
        listeners.add(listener);
    }

    /** Follows the watcher: every published generation updates the table, on the watcher's thread. */
    public void attach(TopologyWatcher watcher) {
        synchronized (this) {
            attached = true;
        }
        watcher.addListener(this::update);
        TopologySnapshot now = watcher.current();
        if (now != null) {
            update(now);
        }
    }

    private void reset() {
        cache = new GidCache(spec.tableSize(), spec.types().size());
        published = new GidEntry[spec.tableSize()];
        publishedList = null;
        views = new LinkedHashMap<>();
        viewsByNs = new HashMap<>();
        defaults = new LinkedHashMap<>();
        portNetdev = null;
    }

    /**
     * Brings the table to this snapshot. Snapshots not newer than the last one are ignored, so
     * the watcher's listener and {@link #attach} may race harmlessly.
     *
     * @return the events applied (empty when nothing changed for this port)
     */
    public synchronized List<GidEvent> update(TopologySnapshot snap) {
        if (snap == prev || (attached && prev != null && snap.generation() <= prev.generation())) {
            return List.of();
        }
        List<GidEvent> events;
        if (portNetdev != null && snap.link(portNetdev) != null) {
            events = diff(snap);
        } else {
            // The port's netdev appeared or vanished: like an rxe device removed with its netdev
            // and added again, start from an empty table and enumerate.
            reset();
            portNetdev = spec.resolve(snap).orElse(null);
            events = portNetdev == null ? List.of() : RoceGidRules.rescan(snap, portNetdev);
            if (portNetdev != null) {
                rebuildViews(snap);
            }
        }
        RoceGidRules.apply(cache, spec.types(), events);
        prev = snap;
        lastEvents = List.copyOf(events);
        publish(snap);
        return lastEvents;
    }

    // ---- diffing ----

    private List<GidEvent> diff(TopologySnapshot snap) {
        Set<NetnsId> changed = new HashSet<>();
        // Only what changed since the last snapshot: at 1,000 namespaces a walk of them all was most of a
        // generation's cost (issue 22).
        TopologySnapshot.Changes since = snap.changesSince(prev);
        boolean structural = !since.removed().isEmpty(); // a namespace vanished (with its devices)
        for (NetnsState s : since.changed()) {
            NetnsState before = prev.namespace(s.id());
            changed.add(s.id());
            if (before == null || !before.links().equals(s.links()) || !before.peers().equals(s.peers())) {
                structural = true;
            }
        }
        if (changed.isEmpty() && !structural) {
            return List.of();
        }
        if (!structural) {
            return addressesOnly(snap, changed);
        }
        return fullDiff(snap);
    }

    /** No link changed anywhere, so eligibility did not: only the IPs of eligible devices in the changed namespaces. */
    private List<GidEvent> addressesOnly(TopologySnapshot snap, Set<NetnsId> changed) {
        List<GidEvent> dels = new ArrayList<>();
        List<GidEvent> adds = new ArrayList<>();
        for (NetnsId id : changed) {
            NetnsState ns = snap.namespace(id);
            for (LinkRef d : viewsByNs.getOrDefault(id, List.of())) {
                DevView old = views.get(d);
                List<InetAddress> now = RoceGidRules.gidAddresses(ns, d.ifindex());
                if (!now.equals(old.ips())) {
                    ipDiff(d, old.ips(), now, dels, adds);
                    views.put(d, new DevView(old.mac(), now));
                }
            }
        }
        dels.addAll(adds);
        return dels;
    }

    private List<GidEvent> fullDiff(TopologySnapshot snap) {
        Map<LinkRef, DevView> next = currentViews(snap);
        Map<LinkRef, HwAddr> nextDefaults = currentDefaults(snap);
        List<GidEvent> dels = new ArrayList<>();
        List<GidEvent> adds = new ArrayList<>();
        Set<LinkRef> cleared = new HashSet<>();
        for (Map.Entry<LinkRef, DevView> e : views.entrySet()) {
            LinkRef d = e.getKey();
            DevView now = next.get(d);
            if (now == null || !Objects.equals(now.mac(), e.getValue().mac())) {
                dels.add(new GidEvent.DelAll(d)); // NETDEV_UNREGISTER / unlink / NETDEV_CHANGEADDR
                cleared.add(d);
            } else {
                ipDiff(d, e.getValue().ips(), now.ips(), dels, new ArrayList<>());
            }
        }
        for (Map.Entry<LinkRef, HwAddr> e : defaults.entrySet()) {
            LinkRef d = e.getKey();
            if (cleared.contains(d)) {
                continue;
            }
            HwAddr now = nextDefaults.get(d);
            if (now == null) {
                dels.add(new GidEvent.DelDefault(d));
            } else if (!now.equals(e.getValue())) {
                dels.add(new GidEvent.DelAll(d)); // NETDEV_CHANGEADDR of the default GID's owner
                cleared.add(d);
            }
        }
        for (Map.Entry<LinkRef, HwAddr> e : nextDefaults.entrySet()) {
            if (!defaults.containsKey(e.getKey()) || cleared.contains(e.getKey())) {
                adds.add(new GidEvent.SetDefault(e.getKey(), e.getValue()));
            }
        }
        for (Map.Entry<LinkRef, DevView> e : next.entrySet()) {
            LinkRef d = e.getKey();
            DevView old = views.get(d);
            if (old == null || cleared.contains(d)) {
                for (InetAddress ip : e.getValue().ips()) {
                    adds.add(new GidEvent.AddIp(d, ip));
                }
            } else {
                ipDiff(d, old.ips(), e.getValue().ips(), new ArrayList<>(), adds);
            }
        }
        views = next;
        defaults = nextDefaults;
        indexViews();
        dels.addAll(adds);
        return dels;
    }

    /**
     * The kernel adds a GID per address notification and deletes one per address removal, so an
     * IP held twice (two prefixes) loses its GID when either goes: diff as multisets.
     */
    private static void ipDiff(
            LinkRef d, List<InetAddress> before, List<InetAddress> after, List<GidEvent> dels, List<GidEvent> adds) {
        Map<InetAddress, Integer> count = new HashMap<>();
        for (InetAddress ip : before) {
            count.merge(ip, 1, Integer::sum);
        }
        for (InetAddress ip : after) {
            count.merge(ip, -1, Integer::sum);
        }
        for (InetAddress ip : before) {
            Integer c = count.get(ip);
            if (c != null && c > 0) {
                dels.add(new GidEvent.DelIp(d, ip));
                count.put(ip, c - 1);
            }
        }
        for (InetAddress ip : after) {
            Integer c = count.get(ip);
            if (c != null && c < 0) {
                adds.add(new GidEvent.AddIp(d, ip));
                count.put(ip, c + 1);
            }
        }
    }

    private void rebuildViews(TopologySnapshot snap) {
        views = currentViews(snap);
        defaults = currentDefaults(snap);
        indexViews();
    }

    private Map<LinkRef, DevView> currentViews(TopologySnapshot snap) {
        Map<LinkRef, DevView> out = new LinkedHashMap<>();
        for (LinkRef d : RoceGidRules.eligibleNetdevs(snap, portNetdev, true)) {
            out.put(d,
                    new DevView(snap.link(d).mac(), RoceGidRules.gidAddresses(snap.namespace(d.netns()), d.ifindex())));
        }
        return out;
    }

    private Map<LinkRef, HwAddr> currentDefaults(TopologySnapshot snap) {
        Map<LinkRef, HwAddr> out = new LinkedHashMap<>();
        for (LinkRef d : RoceGidRules.defaultGidNetdevs(snap, portNetdev)) {
            HwAddr mac = snap.link(d).mac();
            if (mac != null) {
                out.put(d, mac);
            }
        }
        return out;
    }

    private void indexViews() {
        Map<NetnsId, List<LinkRef>> by = new HashMap<>();
        for (LinkRef d : views.keySet()) {
            by.computeIfAbsent(d.netns(), k -> new ArrayList<>()).add(d);
        }
        viewsByNs = by;
    }

    // ---- publishing ----

    private void publish(TopologySnapshot snap) {
        BitSet dirty = cache.drainDirty();
        List<GidEntry> removed = new ArrayList<>();
        List<GidEntry> added = new ArrayList<>();
        for (int i = dirty.nextSetBit(0); i >= 0; i = dirty.nextSetBit(i + 1)) {
            GidEntry e = cache.entry(i);
            GidEntry old = published[i];
            published[i] = e == null ? null : RoceGidRules.named(snap, List.of(e)).get(0);
            if (!Objects.equals(old, published[i])) {
                if (old != null) {
                    removed.add(old);
                }
                if (published[i] != null) {
                    added.add(published[i]);
                }
            }
        }
        GidEntry[] dense = new GidEntry[cache.used()];
        int n = 0;
        for (GidEntry e : published) {
            if (e != null) {
                dense[n++] = e;
            }
        }
        // RdmaPort keeps a GidList as it is; this one shares the unchanged part of the GID index.
        GidList entries = publishedList == null
                ? GidList.of(Arrays.asList(dense))
                : GidList.next(publishedList, dense, removed, added);
        publishedList = entries;
        List<String> p = new ArrayList<>();
        if (portNetdev == null) {
            p.add("soft port " + spec.name() + ": no link " + spec.where() + "; its GID table is empty");
        }
        if (cache.overflows() > 0) {
            p.add("soft port " + spec.name() + ": GID table full (" + spec.tableSize() + " slots); "
                    + cache.overflows() + " GIDs were not added, as the kernel drops them with -ENOSPC");
        }
        problems = List.copyOf(p);
        Link port = portNetdev == null ? null : snap.link(portNetdev);
        long guid = port == null || port.mac() == null
                ? 0
                : RoceGidRules.defaultGid(port.mac()).lo(); // rxe: node GUID = EUI-64 of the MAC
        boolean active = port != null && port.up() && (port.flags() & Link.IFF_LOWER_UP) != 0;
        RdmaPort rp = new RdmaPort(SoftPortSpec.PORT, RdmaPort.LinkLayer.ETHERNET, active ? STATE_ACTIVE : STATE_DOWN,
                guid, List.of(), entries, ROCE_PKEYS, portNetdev, List.of());
        NetnsId where = portNetdev == null ? snap.host() : portNetdev.netns();
        RdmaDevice next = new RdmaDevice(spec.name(), guid, true, where, List.of(rp));
        device = next;
        for (Consumer<RdmaDevice> l : listeners) {
            l.accept(next);
        }
    }

    /** An entry by index in the current table. */
    public OptionalInt indexOf(Gid gid, GidType type, LinkRef ndev) {
        RdmaDevice d = device;
        if (d == null) {
            return OptionalInt.empty();
        }
        for (GidEntry e : d.ports().get(0).gids()) {
            if (e.gid().equals(gid) && e.type() == type && Objects.equals(e.ndev(), ndev)) {
                return OptionalInt.of(e.index());
            }
        }
        return OptionalInt.empty();
    }
}
