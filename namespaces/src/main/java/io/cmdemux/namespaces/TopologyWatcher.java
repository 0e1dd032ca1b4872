package io.cmdemux.namespaces;

import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NativeException;
import io.cmdemux.netdev.NetlinkSocket;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.NsidEntry;
import io.cmdemux.netdev.Rtnl;
import io.cmdemux.netdev.RtnlClient;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a live {@link TopologySnapshot}. One host socket hears link, address, route and nsid
 * notifications from every namespace (NETLINK_LISTEN_ALL_NSID, tagged with the host's nsid for
 * the namespace); each burst of notifications becomes one new generation. A second thread notices
 * namespaces that appear or vanish (inotify on /run/netns, a /proc rescan once a second, and
 * RTM_NEWNSID/RTM_DELNSID in the host) and dumps new ones whole.
 */
public final class TopologyWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TopologyWatcher.class);
    private static final int[] GROUPS = {
        Rtnl.RTNLGRP_LINK, Rtnl.RTNLGRP_IPV4_IFADDR, Rtnl.RTNLGRP_IPV6_IFADDR,
        Rtnl.RTNLGRP_IPV4_ROUTE, Rtnl.RTNLGRP_IPV6_ROUTE, Rtnl.RTNLGRP_NSID,
    };
    private static final long RESCAN_INTERVAL_MS = 1000;
    private static final long MOUNT_SETTLE_MS = 25;

    private final NetnsDiscovery discovery;
    private final NetnsExecutor executor;
    private final Object lock = new Object();
    private final CopyOnWriteArrayList<Consumer<TopologySnapshot>> listeners = new CopyOnWriteArrayList<>();

    // guarded by lock
    private final Map<NetnsId, NamespaceBuilder> state = new LinkedHashMap<>();
    private final Map<NetnsId, String> paths = new HashMap<>();
    private final Map<Integer, NetnsId> byHostNsid = new HashMap<>();
    private final Map<NetnsId, List<NlMessage>> pending = new HashMap<>();
    /** Namespaces whose addresses to read again at the end of this batch of notifications. */
    private final Set<NetnsId> addressesUnannounced = new HashSet<>();
    private NetnsId host;
    private long generation;

    private final int notificationBuffer;
    private volatile TopologySnapshot current;
    private volatile boolean running;
    private volatile boolean rescanRequested;
    private volatile boolean resyncing;
    private volatile boolean overflowed;
    private NetlinkSocket events;
    private RtnlClient eventsClient;
    private RtnlClient scanClient;
    private WatchService inotify;
    private Thread eventThread;
    private Thread scanThread;

    private final AtomicLong notifications = new AtomicLong();
    private final AtomicLong resyncs = new AtomicLong();
    private final AtomicLong decodeErrors = new AtomicLong();
    private final AtomicLong unreadable = new AtomicLong();
    private volatile long lastLatencyNanos;

    /**
     * The notification socket's receive buffer: large, so that a burst of changes does not overflow into
     * ENOBUFS (after which every namespace is read again), within net.core.rmem_max.
     */
    public static final int NOTIFICATION_BUFFER = 8 << 20;

    private static final int ENOBUFS = 105;
    /** How long the event thread waits for a notification before it checks whether it should stop. */
    private static final int WAIT_MILLIS = 250;

    public TopologyWatcher(NetnsDiscovery discovery, NetnsExecutor executor) {
        this(discovery, executor, NOTIFICATION_BUFFER);
    }

    /** @param notificationBuffer the notification socket's SO_RCVBUF; tests make it tiny to force ENOBUFS */
    public TopologyWatcher(NetnsDiscovery discovery, NetnsExecutor executor, int notificationBuffer) {
        this.discovery = discovery;
        this.executor = executor;
        this.notificationBuffer = notificationBuffer;
    }

    /**
     * Subscribes, reads every namespace, publishes generation 1 and starts the threads. Must be
     * called from a thread in the host namespace.
     */
    public void start() throws IOException {
        events = NetlinkSocket.open(NetlinkSocket.NETLINK_ROUTE, 0);
        events.receiveBuffer(notificationBuffer);
        for (int g : GROUPS) {
            events.addMembership(g);
        }
        events.listenAllNsid();
        eventsClient = RtnlClient.open();
        scanClient = RtnlClient.open();
        // Subscribe before the first dump so that no change falls between the two.
        firstRead();
        running = true;
        eventThread = new Thread(this::eventLoop, "cmdemux-rtnl-events");
        eventThread.setDaemon(true);
        eventThread.start();
        try {
            inotify = FileSystems.getDefault().newWatchService();
            Files.createDirectories(discovery.runNetns());
            discovery
                    .runNetns()
                    .register(inotify, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
        } catch (IOException e) {
            log.warn("cannot watch {} ({}); new namespaces are found by the once-a-second rescan only",
                    discovery.runNetns(), e.getMessage());
        }
        scanThread = new Thread(this::scanLoop, "cmdemux-netns-scan");
        scanThread.setDaemon(true);
        scanThread.start();
    }

    public TopologySnapshot current() {
        return current;
    }

    /** Called on the watcher's threads after each new generation; must be quick. */
    public void addListener(Consumer<TopologySnapshot> listener) {
        listeners.add(listener);
    }

    /** Waits until a generation above {@code after} is published; returns the snapshot or null on timeout. */
    public TopologySnapshot awaitNewer(long after, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        synchronized (lock) {
            while (current == null || current.generation() <= after) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return current;
        }
    }

    public record Stats(
            long notifications, long resyncs, long decodeErrors, long unreadableProcEntries, long lastLatencyNanos) {}

    public Stats stats() {
        return new Stats(notifications.get(), resyncs.get(), decodeErrors.get(), unreadable.get(), lastLatencyNanos);
    }

    // ---- full reads ----

    /** Forgets everything and reads every namespace again (start-up, and after ENOBUFS). */
    private void resync() throws IOException {
        NetnsDiscovery.Scan scan = discovery.scan();
        unreadable.set(scan.unreadable());
        List<NamespaceDump> dumps = new LiveDumper(executor, scanClient).dumpAll(scan);
        synchronized (lock) {
            state.clear();
            paths.clear();
            byHostNsid.clear();
            pending.clear();
            host = scan.self();
            for (DiscoveredNetns d : scan.namespaces()) {
                paths.put(d.id(), d.path());
            }
            List<String> problems = new ArrayList<>();
            for (NamespaceDump d : dumps) {
                if (d.hostNsid() >= 0) {
                    byHostNsid.put(d.hostNsid(), d.id());
                }
            }
            for (NamespaceDump d : dumps) {
                state.put(d.id(), fromDump(d, problems));
            }
            generation++;
            List<NetnsState> states = new ArrayList<>();
            for (NamespaceBuilder b : state.values()) {
                states.add(b.toState());
            }
            publish(TopologySnapshot.of(generation, host, states, problems), System.nanoTime());
        }
        resyncs.incrementAndGet();
    }

    private NamespaceBuilder fromDump(NamespaceDump d, List<String> problems) {
        boolean isHost = d.id().equals(host);
        NamespaceBuilder b = new NamespaceBuilder(d.id(), d.names(), isHost, d.hostNsid());
        NamespaceBuilder.PeerResolver r = e -> TopologySnapshot.resolvePeer(e, isHost, host, byHostNsid);
        for (byte[] raw : d.messages()) {
            try {
                b.apply(NlMessage.of(raw), r);
            } catch (MalformedException e) {
                decodeErrors.incrementAndGet();
                problems.add(d.id() + ": " + e.getMessage());
            }
        }
        return b;
    }

    // ---- notifications ----

    private void eventLoop() {
        while (running) {
            try {
                if (overflowed) { // catchUp met the ENOBUFS
                    overflowed = false;
                    overflow();
                    continue;
                }
                // Wait outside the lock, take under it: a notification leaves the socket only while the lock is
                // held, and is in the published snapshot by the time the lock is let go (what catchUp relies on).
                if (!events.awaitReadable(WAIT_MILLIS)) {
                    continue; // check whether we should stop
                }
                synchronized (lock) {
                    drainAndPublish();
                }
            } catch (NativeException e) {
                if (!running) {
                    return;
                }
                if (e.errno() == ENOBUFS) {
                    overflow();
                } else {
                    log.warn("netlink notification socket: {}", e.getMessage());
                    sleepQuietly(100);
                }
            } catch (IOException e) {
                if (!running) {
                    return;
                }
                log.warn("netlink notification socket: {}", e.getMessage());
                sleepQuietly(100);
            }
        }
    }

    /** Notifications were lost: only a full read is trustworthy. */
    private void overflow() {
        log.warn("netlink notifications overflowed; re-reading every namespace");
        resyncing = true;
        try {
            resyncUntilItHolds();
        } finally {
            resyncing = false;
        }
    }

    /** Everything queued, as one generation. Must hold the lock. */
    private void drainAndPublish() throws IOException {
        long arrived = System.nanoTime();
        Set<NetnsId> dirty = new HashSet<>();
        NetlinkSocket.Datagram d;
        while ((d = events.poll()) != null) {
            handle(d, dirty);
        }
        rereadUnannounced(dirty);
        publishDirty(dirty, arrived);
    }

    /**
     * Reads again the addresses of each namespace where a link became ready for IPv6 autoconfiguration
     * ({@link NamespaceBuilder#startsAddrconf}): the kernel has added a tentative link-local address that it
     * will not announce until duplicate address detection ends. Notifications still queued behind this dump
     * are older or newer than it, and applied in order they converge on the kernel's list, as after a
     * namespace's first dump. Must hold the lock.
     */
    private void rereadUnannounced(Set<NetnsId> dirty) throws IOException {
        for (NetnsId id : addressesUnannounced) {
            NamespaceBuilder b = state.get(id);
            if (b == null || !b.host() && b.hostNsid() < 0) {
                continue;
            }
            try {
                b.replaceAddresses(eventsClient.dumpAddresses(
                        b.host() ? OptionalInt.empty() : OptionalInt.of(b.hostNsid())));
                dirty.add(id);
            } catch (MalformedException e) {
                decodeErrors.incrementAndGet();
                log.warn("undecodable address dump of {}: {}", id, e.getMessage());
            } catch (IOException e) {
                // gone meanwhile, or churn outlasted the dump: the announcement at the end of DAD still comes
                log.debug("addresses of {} not read again: {}", id, e.getMessage());
            }
        }
        addressesUnannounced.clear();
    }

    /**
     * Brings the snapshot up to every notification the kernel had queued for us when this is called, on the
     * caller's thread: the listeners have seen the new generation when it returns. For the ingress, so that a
     * request that arrived after an address moved is decided on a snapshot with the move in it (an `ip addr del`
     * has queued its RTM_DELADDR before it returns; scripts/soak found deliveries to the old owner within a few
     * milliseconds of one). Costs the lock and one receive that finds nothing when nothing is queued.
     *
     * @return false when it could not: a full re-read is under way, or the socket failed (the caller goes on
     *     with the current snapshot)
     */
    public boolean catchUp() {
        if (!running || resyncing) {
            return false;
        }
        synchronized (lock) {
            try {
                drainAndPublish();
                return true;
            } catch (NativeException e) {
                if (e.errno() == ENOBUFS) {
                    overflowed = true; // the event thread re-reads; this thread must not wait for that
                }
                return false;
            } catch (IOException e) {
                return false;
            }
        }
    }

    private void handle(NetlinkSocket.Datagram d, Set<NetnsId> dirty) throws IOException {
        List<NlMessage> msgs;
        try {
            msgs = NlMessage.split(d.bytes());
        } catch (MalformedException e) {
            decodeErrors.incrementAndGet();
            log.warn("undecodable netlink notification: {}", e.getMessage());
            return;
        }
        NetnsId where;
        if (d.nsid() == NetlinkSocket.Datagram.NO_NSID) {
            where = host;
        } else {
            where = byHostNsid.get(d.nsid());
            if (where == null) {
                rescanRequested = true; // a namespace we have not read yet; the scan thread dumps it whole
                return;
            }
        }
        List<NlMessage> buffer = pending.get(where);
        if (buffer != null) {
            buffer.addAll(msgs); // being dumped right now: replay after the dump lands
            return;
        }
        NamespaceBuilder b = state.get(where);
        if (b == null) {
            return;
        }
        for (NlMessage m : msgs) {
            notifications.incrementAndGet();
            if (m.type() == Rtnl.RTM_NEWNSID || m.type() == Rtnl.RTM_DELNSID) {
                nsidChanged(b, m, dirty);
                continue;
            }
            try {
                if (b.startsAddrconf(m)) {
                    addressesUnannounced.add(where);
                }
                b.notify(m, e -> null);
                dirty.add(where);
            } catch (MalformedException e) {
                decodeErrors.incrementAndGet();
                log.warn("undecodable notification in {}: {}", where, e.getMessage());
            }
        }
    }

    /** An nsid table changed: the host's (a namespace got or lost its host nsid) or a pod's. */
    private void nsidChanged(NamespaceBuilder b, NlMessage m, Set<NetnsId> dirty) throws IOException {
        if (b.host()) {
            if (m.type() == Rtnl.RTM_DELNSID) {
                try {
                    int nsid = Rtnl.decodeNsid(m).nsid();
                    NetnsId owner = byHostNsid.get(nsid);
                    // The kernel frees a dead namespace's nsid late (cleanup_net), and hands the number
                    // to the next namespace that asks: by the time this arrives it may name a live one.
                    if (owner != null && !stillHas(owner, nsid)) {
                        byHostNsid.remove(nsid);
                        if (!owner.equals(host)) {
                            rescanRequested = true; // the namespace behind it died
                        }
                    }
                } catch (MalformedException e) {
                    decodeErrors.incrementAndGet();
                }
            }
            rereadPeers(b);
            dirty.add(b.id());
            selfNsidChanged(dirty);
            return;
        }
        rereadPeers(b);
        dirty.add(b.id());
    }

    /** Whether the host still knows namespace {@code id} by {@code nsid}. Must hold the lock. */
    private boolean stillHas(NetnsId id, int nsid) {
        String path = id.equals(host) ? "/proc/self/ns/net" : paths.get(id);
        if (path == null) {
            return false;
        }
        try (io.cmdemux.netdev.NetnsHandle h = io.cmdemux.netdev.NetnsHandle.open(path)) {
            return h.dev() == id.dev() && h.ino() == id.inode() && eventsClient.nsidOf(h) == nsid;
        } catch (IOException e) {
            return false; // the path no longer opens a namespace: it is gone
        }
    }

    /**
     * The host may get (or lose) an nsid for itself; pods' nsid tables then name the host by it, so
     * every pod's peers are read again when it changes. Must hold the lock.
     */
    private void selfNsidChanged(Set<NetnsId> dirty) throws IOException {
        int self;
        try (io.cmdemux.netdev.NetnsHandle h = io.cmdemux.netdev.NetnsHandle.open("/proc/self/ns/net")) {
            self = eventsClient.nsidOf(h);
        }
        Integer known = null;
        for (Map.Entry<Integer, NetnsId> e : byHostNsid.entrySet()) {
            if (e.getValue().equals(host)) {
                known = e.getKey();
            }
        }
        if (known != null && known == self || known == null && self < 0) {
            return;
        }
        byHostNsid.values().remove(host);
        if (self >= 0) {
            byHostNsid.put(self, host);
        }
        for (NamespaceBuilder pod : state.values()) {
            if (!pod.host()) {
                rereadPeers(pod);
                dirty.add(pod.id());
            }
        }
    }

    private void rereadPeers(NamespaceBuilder b) throws IOException {
        List<NlMessage> table = eventsClient.dumpNsids(b.host() ? OptionalInt.empty() : OptionalInt.of(b.hostNsid()));
        b.clearPeers();
        for (NlMessage m : table) {
            try {
                NsidEntry e = Rtnl.decodeNsid(m);
                NetnsId peer = TopologySnapshot.resolvePeer(e, b.host(), host, byHostNsid);
                if (peer != null) {
                    b.putPeer(e.nsid(), peer);
                }
            } catch (MalformedException e) {
                decodeErrors.incrementAndGet();
            }
        }
    }

    private void publishDirty(Set<NetnsId> dirty, long arrivedNanos) {
        if (dirty.isEmpty()) {
            return;
        }
        List<NetnsState> changed = new ArrayList<>(dirty.size());
        for (NetnsId id : dirty) {
            NamespaceBuilder b = state.get(id);
            if (b != null) {
                changed.add(b.toState());
            }
        }
        generation++;
        publish(current.with(generation, changed, List.of()), arrivedNanos);
    }

    /** Must hold the lock. */
    private void publish(TopologySnapshot next, long arrivedNanos) {
        current = next;
        lastLatencyNanos = System.nanoTime() - arrivedNanos;
        lock.notifyAll();
        for (Consumer<TopologySnapshot> l : listeners) {
            try {
                l.accept(next);
            } catch (RuntimeException e) {
                log.warn("topology listener failed: {}", e.toString());
            }
        }
    }

    // ---- namespaces coming and going ----

    private void scanLoop() {
        long nextRescan = System.currentTimeMillis() + RESCAN_INTERVAL_MS;
        while (running) {
            try {
                long wait = Math.max(1, nextRescan - System.currentTimeMillis());
                boolean changed = rescanRequested;
                boolean fromInotify = false;
                if (!changed && inotify != null) {
                    WatchKey key = inotify.poll(Math.min(wait, 50), TimeUnit.MILLISECONDS);
                    if (key != null) {
                        changed = !key.pollEvents().isEmpty();
                        fromInotify = changed;
                        key.reset();
                    }
                } else if (!changed) {
                    Thread.sleep(Math.min(wait, 50));
                }
                if (changed || rescanRequested || System.currentTimeMillis() >= nextRescan) {
                    rescanRequested = false;
                    rescan();
                    // `ip netns add` (and runtimes) create the file first and bind-mount the namespace
                    // onto it a moment later; inotify says nothing about the mount, so look again soon
                    // rather than at the next periodic rescan.
                    nextRescan = System.currentTimeMillis() + (fromInotify ? MOUNT_SETTLE_MS : RESCAN_INTERVAL_MS);
                }
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            } catch (IOException | RuntimeException e) {
                if (running) {
                    log.warn("namespace rescan failed: {}", e.toString());
                    sleepQuietly(200);
                }
            }
        }
    }

    /**
     * Asks for a namespace scan now, for a caller that knows a namespace exists that this watcher
     * may not have found yet (a CNI request naming it). The scan thread runs it within 50 ms.
     */
    public void requestRescan() {
        rescanRequested = true;
    }

    /** Adds namespaces that appeared, drops those that vanished, and updates names. */
    private void rescan() throws IOException {
        NetnsDiscovery.Scan scan = discovery.scan();
        unreadable.set(scan.unreadable());
        Map<NetnsId, DiscoveredNetns> seen = new LinkedHashMap<>();
        for (DiscoveredNetns d : scan.namespaces()) {
            seen.put(d.id(), d);
        }
        List<DiscoveredNetns> added = new ArrayList<>();
        synchronized (lock) {
            List<NetnsId> removed = new ArrayList<>();
            List<NetnsState> renamed = new ArrayList<>();
            for (NetnsId id : new ArrayList<>(state.keySet())) {
                DiscoveredNetns d = seen.get(id);
                if (d == null) {
                    NamespaceBuilder gone = state.remove(id);
                    paths.remove(id);
                    byHostNsid.values().remove(id);
                    removed.add(id);
                    log.debug("namespace {} {} vanished", id, gone.names());
                } else if (!d.names().equals(state.get(id).names())) {
                    state.get(id).names(d.names());
                    paths.put(id, d.path());
                    renamed.add(state.get(id).toState());
                }
            }
            for (DiscoveredNetns d : scan.namespaces()) {
                if (!state.containsKey(d.id()) && !pending.containsKey(d.id())) {
                    added.add(d);
                }
            }
            if (!removed.isEmpty() || !renamed.isEmpty()) {
                generation++;
                publish(current.with(generation, renamed, removed), System.nanoTime());
            }
        }
        for (DiscoveredNetns d : added) {
            addNamespace(d);
        }
    }

    private void addNamespace(DiscoveredNetns d) throws IOException {
        int hostNsid;
        try (io.cmdemux.netdev.NetnsHandle h = io.cmdemux.netdev.NetnsHandle.open(d.path())) {
            hostNsid = scanClient.ensureNsid(h);
        } catch (NativeException e) {
            return; // gone again before we could read it
        }
        synchronized (lock) {
            byHostNsid.put(hostNsid, d.id());
            pending.put(d.id(), new ArrayList<>());
        }
        NamespaceDump dump;
        try {
            dump = new LiveDumper(executor, scanClient).dumpOne(d);
        } catch (IOException e) {
            synchronized (lock) {
                pending.remove(d.id());
                byHostNsid.remove(hostNsid, d.id());
            }
            log.debug("namespace {} vanished while being read: {}", d.id(), e.getMessage());
            return;
        }
        synchronized (lock) {
            List<NlMessage> replay = pending.remove(d.id());
            if (replay == null) {
                return; // a resync on the event thread read everything meanwhile and forgot this read
            }
            NamespaceBuilder b = fromDump(dump, new ArrayList<>());
            boolean nsidsChanged = false;
            for (NlMessage m : replay) {
                try {
                    if (m.type() != Rtnl.RTM_NEWNSID && m.type() != Rtnl.RTM_DELNSID) {
                        if (b.startsAddrconf(m)) {
                            addressesUnannounced.add(d.id());
                        }
                        b.notify(m, e -> null);
                    } else {
                        nsidsChanged = true;
                    }
                } catch (MalformedException e) {
                    decodeErrors.incrementAndGet();
                }
            }
            // Its nsid table changed after the dump read it (a macvlan created in it meanwhile made
            // the kernel give the host an nsid there): read it again, or that link's parent stays unknown.
            if (nsidsChanged) {
                rereadPeers(b);
            }
            state.put(d.id(), b);
            paths.put(d.id(), d.path());
            // The host's own table gained an nsid for it: re-read so that host links can point there.
            rereadUnannounced(new HashSet<>());
            NamespaceBuilder hostState = state.get(host);
            rereadPeers(hostState);
            generation++;
            publish(current.with(generation, List.of(b.toState(), hostState.toState()), List.of()), System.nanoTime());
        }
    }

    /**
     * After ENOBUFS. The kernel drops the newest notification when the queue is full, so what is
     * still queued is older than the loss and older than the dump about to be taken: replayed on top
     * of the dump, an RTM_NEWADDR whose RTM_DELADDR was the one dropped would bring a deleted address
     * back. So the queue is discarded before every attempt; what arrives after that is newer than the
     * start of the dump and, applied in order, converges on the kernel's state. A dump that churn
     * keeps interrupting fails; the old state must not stand, so it is tried again, backing off, for
     * as long as the watcher runs.
     */
    private void resyncUntilItHolds() {
        long backoff = 50;
        while (running) {
            try {
                discardQueued();
                resync();
                return;
            } catch (IOException e) {
                log.warn("re-reading the topology failed, again in {} ms: {}", backoff, e.getMessage());
                sleepQuietly(backoff);
                backoff = Math.min(backoff * 2, 2000);
            }
        }
    }

    /**
     * The first full read. A namespace under heavy churn (a burst of `ip -batch` in some pod) can
     * interrupt its dump every time for a while; that must delay the start, not fail it, so this tries
     * again, backing off, for up to {@link #FIRST_READ_MILLIS}.
     */
    private void firstRead() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FIRST_READ_MILLIS);
        long backoff = 50;
        while (true) {
            try {
                discardQueued();
                resync();
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                log.warn("reading the topology failed, again in {} ms: {}", backoff, e.getMessage());
                sleepQuietly(backoff);
                backoff = Math.min(backoff * 2, 2000);
            }
        }
    }

    private static final long FIRST_READ_MILLIS = 60_000;

    private void discardQueued() throws IOException {
        while (true) {
            try {
                if (events.poll() == null) {
                    return;
                }
            } catch (NativeException e) {
                if (e.errno() != ENOBUFS) {
                    throw e;
                }
            }
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            if (inotify != null) {
                inotify.close();
            }
        } catch (IOException e) {
            log.debug("closing inotify: {}", e.getMessage());
        }
        if (scanThread != null) {
            scanThread.interrupt();
        }
        for (Thread t : new Thread[] {eventThread, scanThread}) {
            if (t != null) {
                try {
                    t.join(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        if (events != null) {
            events.close();
        }
        if (eventsClient != null) {
            eventsClient.close();
        }
        if (scanClient != null) {
            scanClient.close();
        }
    }
}
