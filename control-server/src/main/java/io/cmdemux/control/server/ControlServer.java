package io.cmdemux.control.server;

import io.cmdemux.dataplane.consumer.CmEvent;
import io.cmdemux.control.protocol.DecisionSummary;
import io.cmdemux.control.protocol.FrameCodec;
import io.cmdemux.control.protocol.FrameDecoder;
import io.cmdemux.control.protocol.FrameEncoder;
import io.cmdemux.control.protocol.Messages;
import io.cmdemux.control.protocol.ReadGate;
import io.cmdemux.control.protocol.Via;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.TopologyWatcher;
import io.cmdemux.dataplane.consumer.Consumers;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelId;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control API (docs/PROTOCOL.md): a host Unix socket for the CLI, the CNI helper and host
 * consumers, and an abstract socket @cmdemux inside every namespace it is told to serve, for pod
 * consumers. Each connection is placed in its namespace by the kernel (which socket accepted it,
 * or SO_PEERCRED checked against the connection's netns cookie), never by what it says. Consumers
 * LISTEN with the kernel's rdma_bind_addr rules; the pipeline reads {@link #listeners()}, hands
 * requests over with {@link #deliver}, and hears REJECTs through {@link #onReject}. The CNI plugin's
 * messages (POD_REGISTER, POD_UNREGISTER, CNI) go to a {@link PodHandler} and CLI to a {@link CliHandler}, for
 * root on the host socket only.
 */
public final class ControlServer implements Consumers {
    private static final Logger log = LoggerFactory.getLogger(ControlServer.class);

    /**
     * Settings, each with its default.
     *
     * @param hostSocket the socket file; its directory is created (default /run/cmdemux/cmdemux.sock)
     * @param socketGroup a group to own the host socket (mode 0660), null to keep root's
     * @param abstractName the abstract name opened in every namespace, without the leading NUL (default "cmdemux")
     * @param queriesFromPods whether consumers outside the host namespace may QUERY topology,
     *     explain and gids (they reveal other namespaces; default false). LISTENERS is always allowed
     *     and shows a pod only its own namespace.
     * @param eventLoopThreads Netty event loops that serve the control sockets' connections (default 2: one peer's
     *     flood leaves the consumers on the other loop their turns; docs/RELIABILITY.md, "Two control event loops").
     *     The sockets accept on one more loop of their own, which also refuses a namespace's connections beyond
     *     its limit ({@link AdmissionGate})
     * @param maxConnectionsPerNamespace beyond this a namespace's new connections are closed (default 128)
     * @param maxListenersPerConsumer LISTEN answers ENOSPC beyond this (default 1024)
     * @param maxListenersPerNamespace LISTEN answers ENOSPC beyond this, whoever asks (default 4096)
     * @param maxOutstandingPerConsumer delivered requests a consumer may hold unanswered; beyond them its new
     *     requests are dropped as from a full backlog, and the requester retries (default 4096)
     * @param stalledFrameMillis a frame that stays incomplete this long closes its connection (default 10 s)
     */
    public record Config(Path hostSocket, String socketGroup, String abstractName, boolean queriesFromPods,
            int eventLoopThreads, int maxConnectionsPerNamespace, int maxListenersPerConsumer,
            int maxListenersPerNamespace, int maxOutstandingPerConsumer, long stalledFrameMillis) {
        public Config {
            Objects.requireNonNull(hostSocket, "hostSocket");
            Objects.requireNonNull(abstractName, "abstractName");
            if (abstractName.isEmpty() || abstractName.length() > 100 || abstractName.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("abstract socket name '" + abstractName
                        + "' must be 1-100 characters without NUL");
            }
            if (hostSocket.toString().length() > 107) {
                throw new IllegalArgumentException("host socket path " + hostSocket
                        + " is longer than sun_path allows (107 bytes)");
            }
            if (eventLoopThreads < 1 || maxConnectionsPerNamespace < 1 || maxListenersPerConsumer < 1
                    || maxListenersPerNamespace < 1
                    || maxOutstandingPerConsumer < 1 || stalledFrameMillis < 1) {
                throw new IllegalArgumentException("control limits must be positive");
            }
        }

        public static Config defaults() {
            return new Config(Path.of(Wire.DEFAULT_HOST_SOCKET), null, Wire.ABSTRACT_NAME, false, 2, 128, 1024, 4096,
                    4096, 10_000);
        }

        public Config withHostSocket(Path p) {
            return new Config(p, socketGroup, abstractName, queriesFromPods, eventLoopThreads,
                    maxConnectionsPerNamespace, maxListenersPerConsumer, maxListenersPerNamespace,
                    maxOutstandingPerConsumer, stalledFrameMillis);
        }

        public Config withAbstractName(String n) {
            return new Config(hostSocket, socketGroup, n, queriesFromPods, eventLoopThreads, maxConnectionsPerNamespace,
                    maxListenersPerConsumer, maxListenersPerNamespace, maxOutstandingPerConsumer, stalledFrameMillis);
        }

        public Config withEventLoopThreads(int n) {
            return new Config(hostSocket, socketGroup, abstractName, queriesFromPods, n, maxConnectionsPerNamespace,
                    maxListenersPerConsumer, maxListenersPerNamespace, maxOutstandingPerConsumer, stalledFrameMillis);
        }

        public Config withLimits(int maxConnectionsPerNamespace, int maxListenersPerConsumer,
                int maxListenersPerNamespace, int maxOutstandingPerConsumer, long stalledFrameMillis) {
            return new Config(hostSocket, socketGroup, abstractName, queriesFromPods, eventLoopThreads,
                    maxConnectionsPerNamespace, maxListenersPerConsumer, maxListenersPerNamespace,
                    maxOutstandingPerConsumer, stalledFrameMillis);
        }
    }

    /**
     * A moment's view for metrics, the status page and tests.
     *
     * @param consumersPerNamespace connections by the namespace they were placed in
     */
    public record Stats(int connections, int listeners, long listenerGeneration, Set<NetnsId> namespacesServed,
            Map<String, Long> counters, Map<NetnsId, Integer> consumersPerNamespace) {
        public Stats {
            consumersPerNamespace = Map.copyOf(consumersPerNamespace);
        }
    }

    private final Config config;
    private final EventLoopGroup group;
    /**
     * Where the control sockets accept, off the loops that serve consumers: a connection's accept, and all of a
     * refused pod connection's life ({@link AdmissionGate}), then cost those loops nothing.
     */
    private final EventLoopGroup acceptGroup;
    private final ThreadPoolExecutor workers;
    private final LogBudget logBudget;
    private final ExecutorService netnsThread;
    private final ThreadPoolExecutor podWorkers;
    private static final int POD_THREADS = 4;
    /**
     * A connection's requests handled per read before the event loop turns to its other work: enough for a
     * consumer's burst of REJECTs or ACCEPTs at a time, and at most a few hundred microseconds of one peer's.
     */
    static final int FRAMES_PER_TURN = 64;
    private static final int POD_QUEUE = 128;
    private final ControlCounters counters = new ControlCounters();
    private final ListenerRegistry registry;
    private final NamespaceCookies cookies;
    private final NamespaceSockets sockets;
    private final NamespaceNames names;
    private final Connections connections;
    private final ControlHandler.Context context;
    private final AtomicBoolean rescanQueued = new AtomicBoolean();
    private volatile TopologySnapshot lastTopology;
    private volatile RejectHandler rejectHandler;
    private volatile CliHandler cliHandler;
    private volatile AcceptHandler acceptHandler;
    private volatile DisconnectHandler disconnectHandler;
    private volatile Channel hostServer;
    /** Per thread: between holdDeliveries and releaseDeliveries, what it delivers, handed over at the release. */
    private final ThreadLocal<Held> held = new ThreadLocal<>();
    private volatile boolean closed;

    /**
     * @param topology the live topology (the daemon passes {@code watcher::current}); LISTEN checks
     *     addresses against the caller's namespace in it
     * @param executor where sockets are created inside namespaces; the only place setns happens
     * @param queries answers QUERY topology/explain/gids; null answers them with EOPNOTSUPP
     */
    public ControlServer(Config config, Supplier<TopologySnapshot> topology, NetnsExecutor executor,
            QueryHandler queries) throws IOException {
        this(config, topology, executor, queries, null);
    }

    /**
     * @param pods answers POD_REGISTER, POD_UNREGISTER and CNI (from root on the host socket only);
     *     null answers them with EOPNOTSUPP
     */
    public ControlServer(Config config, Supplier<TopologySnapshot> topology, NetnsExecutor executor,
            QueryHandler queries, PodHandler pods)
            throws IOException {
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(topology, "topology");
        if (!Epoll.isAvailable()) {
            throw new IOException("the Netty epoll transport is not available: " + Epoll.unavailabilityCause());
        }
        this.names = new NamespaceNames(NetnsDiscovery.idOf(Path.of("/proc/self/ns/net")), topology);
        // Netty derives channel ids from a MAC address on first use; do it here, in the host
        // namespace, rather than on a NetnsExecutor thread inside a pod with no interfaces.
        DefaultChannelId.newInstance();
        this.group = new MultiThreadIoEventLoopGroup(config.eventLoopThreads(),
                new DefaultThreadFactory("cmdemux-control", true), EpollIoHandler.newFactory());
        this.acceptGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("cmdemux-accept", true),
                EpollIoHandler.newFactory());
        this.workers = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(256),
                new DefaultThreadFactory("cmdemux-control-worker", true));
        this.workers.allowCoreThreadTimeOut(true);
        this.netnsThread = Executors.newSingleThreadExecutor(new DefaultThreadFactory("cmdemux-control-netns", true));
        // Pod requests wait for GIDs (up to the network's rdma.waitMillis), so they get threads of
        // their own; runtimes set up several pods at once.
        this.podWorkers = new ThreadPoolExecutor(POD_THREADS, POD_THREADS, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(POD_QUEUE), new DefaultThreadFactory("cmdemux-control-pods", true));
        this.podWorkers.allowCoreThreadTimeOut(true);
        this.registry = new ListenerRegistry(config.maxListenersPerConsumer(), config.maxListenersPerNamespace());
        this.cookies = new NamespaceCookies(executor);
        this.logBudget = new LogBudget(System::nanoTime, counters);
        this.connections = new Connections(new PeerIdentity(Path.of("/proc"), cookies), registry, workers, counters,
                logBudget, config.maxConnectionsPerNamespace(), config.maxOutstandingPerConsumer());
        this.context = new ControlHandler.Context(connections, registry,
                new QueryRunner(queries, config.queriesFromPods(), registry, names, workers, counters),
                new PodRequests(pods, () -> cliHandler, names, podWorkers, counters), topology, () -> rejectHandler,
                () -> acceptHandler, () -> disconnectHandler, names, counters, logBudget);
        this.sockets = new NamespaceSockets(executor, acceptGroup, group, config.abstractName(),
                id -> new AdmissionGate(id, connections), id -> childInit(Via.ABSTRACT_SOCKET, id), cookies, counters);
    }

    // ---- lifecycle ----

    /**
     * The daemon's wiring in one call: a server that has bound the host socket and keeps @cmdemux
     * open in every namespace the watcher's discovery finds. The watcher must have been started.
     */
    public static ControlServer start(Config config, TopologyWatcher watcher, NetnsDiscovery discovery,
            NetnsExecutor executor,
            QueryHandler queries) throws IOException {
        return start(config, watcher, discovery, executor, queries, null);
    }

    /**
     * As {@link #start(Config, TopologyWatcher, NetnsDiscovery, NetnsExecutor, QueryHandler)}, with a
     * handler for the pod messages.
     */
    public static ControlServer start(Config config, TopologyWatcher watcher, NetnsDiscovery discovery,
            NetnsExecutor executor,
            QueryHandler queries, PodHandler pods) throws IOException {
        ControlServer s = new ControlServer(config, watcher::current, executor, queries, pods);
        try {
            s.start();
            s.follow(watcher, discovery);
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Binds the host socket (mode 0660). Refuses to take over a socket another live daemon
     * answers on; a stale file from a crash is replaced.
     */
    public void start() throws IOException {
        Path path = config.hostSocket();
        Path dir = path.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.readAttributes(path, java.nio.file.attribute.BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS).isOther()) {
                throw new IOException(path
                        + " exists and is not a socket; remove it or choose another --control-socket");
            }
            if (answers(path)) {
                throw new IOException("another cmdemux daemon is serving " + path);
            }
        }
        ChannelFuture f = new ServerBootstrap()
                .group(acceptGroup, group)
                .channel(EpollServerDomainSocketChannel.class)
                // Nothing is read from a host-socket peer until it has been placed in its namespace.
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                .childHandler(childInit(Via.HOST_SOCKET, null))
                .bind(new DomainSocketAddress(path.toString()))
                .awaitUninterruptibly();
        if (!f.isSuccess()) {
            throw new IOException("cannot bind the control socket " + path + ": " + f.cause().getMessage(), f.cause());
        }
        hostServer = f.channel();
        // Bound with the umask's mode, which for root is 0755 and lets no one else connect; tighten/widen to 0660 now.
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-rw----"));
        if (config.socketGroup() != null) {
            GroupPrincipal g = path.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByGroupName(config.socketGroup());
            Files.setAttribute(path, "posix:group", g, LinkOption.NOFOLLOW_LINKS);
        }
        log.info("control socket {} (mode 0660{}), @{} in each served namespace", path,
                config.socketGroup() == null ? "" : ", group " + config.socketGroup(), config.abstractName());
    }

    private static boolean answers(Path path) {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.configureBlocking(false);
            ch.connect(UnixDomainSocketAddress.of(path));
            return true; // connected, or in progress because its backlog is full: someone is listening
        } catch (ConnectException e) {
            return false; // ECONNREFUSED: a file left behind by a daemon that died
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Keeps @cmdemux open in every namespace on the host: whenever the watcher publishes a
     * snapshot whose set of namespaces changed, a discovery scan (for paths that open them) is
     * reconciled on the control's own thread.
     */
    public void follow(TopologyWatcher watcher, NetnsDiscovery discovery) {
        watcher.addListener(snap -> onTopology(snap, discovery));
        TopologySnapshot now = watcher.current();
        if (now != null) {
            onTopology(now, discovery);
        }
    }

    private void onTopology(TopologySnapshot snap, NetnsDiscovery discovery) {
        // Rescan when namespaces came or went, or to retry one whose socket could not be opened. Asked of what
        // changed since the last snapshot, not of every namespace: this runs for each generation (issue 22).
        TopologySnapshot last = lastTopology;
        lastTopology = snap;
        if (last != null) {
            TopologySnapshot.Changes changes = snap.changesSince(last);
            changes.removed().forEach(logBudget::forget);
            if (!cameOrWent(changes, last) && !sockets.incomplete()) {
                return;
            }
        }
        if (!rescanQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            netnsThread.execute(() -> {
                rescanQueued.set(false);
                try {
                    sockets.reconcile(discovery.scan().namespaces());
                } catch (IOException e) {
                    log.warn("namespace scan for @{} failed: {}", config.abstractName(), e.getMessage());
                }
            });
        } catch (RejectedExecutionException e) {
            rescanQueued.set(false); // closing
        }
    }

    private static boolean cameOrWent(TopologySnapshot.Changes c, TopologySnapshot before) {
        if (!c.removed().isEmpty()) {
            return true;
        }
        for (NetnsState s : c.changed()) {
            if (before.namespace(s.id()) == null) {
                return true;
            }
        }
        return false;
    }

    public Set<NetnsId> servedNamespaces() {
        return sockets.served();
    }

    public ControlCounters counters() {
        return counters;
    }

    /** A live connection by its consumer id, or null: for tests that must act on its event loop. */
    Connection connection(long consumerId) {
        return connections.get(consumerId);
    }

    public Stats stats() {
        ListenerTable t = registry.table();
        return new Stats(connections.size(), t.all().size(), t.generation(), sockets.served(), counters.snapshot(),
                connections.perNamespace());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Channel h = hostServer;
        if (h != null) {
            h.close().syncUninterruptibly(); // Netty unlinks the socket file
        }
        sockets.close();
        connections.closeAll();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        acceptGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownNow();
        podWorkers.shutdownNow();
        netnsThread.shutdownNow();
    }

    // ---- Consumers ----

    /** The consumers' listeners, placed in their proven namespaces; a volatile read, cheap enough per frame. */
    @Override
    public ListenerTable listeners() {
        return registry.table();
    }

    /**
     * Sends the REQ to the connection that owns {@code d.listener()}; safe from any thread, and
     * it does not wait for the socket. Not taken, counted as {@code deliver.<why>}, when the listener
     * is not (or no longer) one of ours, its consumer has gone, the consumer's namespace is not
     * the listener's (GONE), or the consumer is not keeping up (BACKLOG: over 1 MiB already queued for it, or
     * maxOutstandingPerConsumer delivered and unanswered).
     */
    @Override
    public Handover deliver(Delivery d) {
        Listener l = d.listener();
        long owner = l == null ? -1 : registry.ownerOf(l.bindOrder());
        if (owner < 0 || !ListenerRegistry.owner(owner).equals(l.owner())) {
            counters.inc("deliver.listener-gone");
            return Handover.GONE;
        }
        Connection c = connections.get(owner);
        if (c == null || !c.channel.isActive()) {
            counters.inc("deliver.consumer-gone");
            return Handover.GONE;
        }
        if (!l.netns().equals(c.netns())) {
            counters.inc("deliver.netns-mismatch");
            log.warn("not delivering trace {}: listener {} is in {} but {} is in {}", d.traceId(), l.bindOrder(),
                    l.netns(), c, c.netns());
            return Handover.GONE;
        }
        if (!c.channel.isWritable()) {
            counters.inc("deliver.backlog");
            return Handover.BACKLOG;
        }
        if (c.full()) {
            // Holding maxOutstandingPerConsumer unanswered: a new request is dropped as from a full listen backlog
            // (the requester retries), never made room for by forgetting an older one, whose session would then
            // wait with nobody left to answer it (scripts/soak: a million of them behind slow consumers).
            counters.inc("deliver.outstanding");
            return Handover.BACKLOG;
        }
        DecisionSummary summary = d.decision() == null
                ? new DecisionSummary(io.cmdemux.ingress.resolve.Decision.Outcome.DELIVER, null, null, 0,
                        l.netns().inode(), 0)
                : DecisionSummary.of(d.decision());
        NetnsId decided = d.decision() == null || d.decision().netns() == null ? l.netns() : d.decision().netns();
        // Encoded here, on the pipeline's thread, straight into a pooled direct buffer: the event loop
        // hands it to writev as it is, with no copy and no garbage. A held batch's deliveries to one
        // consumer share one buffer: one allocation and one write for the batch, not one per request.
        String netnsName = names.of(decided);
        int length = Messages.requestLength(d.meta(), d.frame(), netnsName);
        Held h = held.get();
        if (h != null && !h.holding) {
            h = null;
        }
        ByteBuf bytes = h != null ? h.buffer(c, length) : c.channel.alloc().directBuffer(length);
        Messages.writeRequest(bytes, c.nextSeq(), d.traceId(), l.bindOrder(), d.meta(), d.frame(), summary, netnsName);
        c.expect(d.traceId(), l.bindOrder());
        if (h == null && c.queue(bytes)) {
            c.drainSoon(counters);
        }
        counters.inc("deliver.sent");
        return Handover.TAKEN;
    }

    /** One thread's deliveries between holdDeliveries and releaseDeliveries: a buffer per consumer. */
    private static final class Held {
        /** Deliveries a batch's buffer is first made for; it grows past them. */
        private static final int BATCH_HINT = 16;
        boolean holding;
        final List<Connection> consumers = new java.util.ArrayList<>(4);
        final List<ByteBuf> buffers = new java.util.ArrayList<>(4);

        ByteBuf buffer(Connection c, int length) {
            for (int i = 0; i < consumers.size(); i++) {
                if (consumers.get(i) == c) {
                    return buffers.get(i);
                }
            }
            ByteBuf b = c.channel.alloc().directBuffer(length * BATCH_HINT);
            consumers.add(c);
            buffers.add(b);
            return b;
        }
    }

    @Override
    public void holdDeliveries() {
        Held h = held.get();
        if (h == null) {
            h = new Held();
            held.set(h);
        }
        h.holding = true;
    }

    @Override
    public void releaseDeliveries() {
        Held h = held.get();
        if (h == null || !h.holding) {
            return;
        }
        h.holding = false;
        for (int i = 0; i < h.consumers.size(); i++) {
            Connection c = h.consumers.get(i);
            if (c.queue(h.buffers.get(i))) {
                c.drainSoon(counters);
            }
        }
        h.consumers.clear();
        h.buffers.clear();
    }

    /** Where CLI goes (one-shot verbs answered on the daemon's live state); until then it is EOPNOTSUPP. */
    public void onCli(CliHandler handler) {
        this.cliHandler = handler;
    }

    /** The handler runs on a Netty event loop: it must hand slow work (sending the REJ may be) to its own thread. */
    @Override
    public void onReject(RejectHandler handler) {
        this.rejectHandler = handler;
    }

    /** Runs on a Netty event loop, like {@link #onReject}. */
    @Override
    public void onAccept(AcceptHandler handler) {
        this.acceptHandler = handler;
    }

    @Override
    public void onDisconnect(DisconnectHandler handler) {
        this.disconnectHandler = handler;
    }

    @Override
    public void onConsumerGone(java.util.function.Consumer<String> handler) {
        connections.onGone(handler);
    }

    @Override
    public boolean notify(String owner, CmEvent event) {
        long id;
        try {
            id = Long.parseLong(owner.substring(owner.lastIndexOf('-') + 1));
        } catch (RuntimeException e) {
            return false;
        }
        Connection c = connections.get(id);
        if (c == null || !c.channel.isActive() || !ListenerRegistry.owner(id).equals(owner)) {
            counters.inc("event.consumer-gone");
            return false;
        }
        // Through the delivery queue: events from a burst of RTUs share one event-loop task and one write(2).
        c.send(Unpooled.wrappedBuffer(FrameCodec.encode(Messages.cmEventFrame(c.nextSeq(),
                ConsumerPort.toWire(event)))), counters);
        counters.inc("event.sent");
        return true;
    }

    private ChannelHandler childInit(Via via, NetnsId acceptedIn) {
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(256 * 1024, 1024 * 1024));
                if (via == Via.HOST_SOCKET) {
                    ReadGate.of(ch).hold(ReadGate.Reason.UNIDENTIFIED); // Connections lifts it once placed
                }
                ch.pipeline().addLast(new FrameDecoder(Wire.MAX_REQUEST_FRAME, config.stalledFrameMillis(),
                                FRAMES_PER_TURN, () -> counters.inc("read.over-budget")),
                        FrameEncoder.INSTANCE, new ControlHandler(context, via, acceptedIn));
            }
        };
    }
}
