package io.cmdemux.daemon;

import io.cmdemux.pathrecord.PathRecordService;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.SoftPortSpec;
import io.cmdemux.gid.SoftRocePort;
import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.ingress.resolve.DecisionCache;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.TopologyWatcher;
import io.cmdemux.observer.LiveHost;
import io.cmdemux.observer.btf.KernelBtf;
import io.cmdemux.netdev.PacketSocket;
import io.cmdemux.cni.CniService;
import io.cmdemux.cni.LiveRdmaState;
import io.cmdemux.control.server.CliHandler;
import io.cmdemux.control.server.ControlServer;
import io.cmdemux.dataplane.pipeline.DecisionLog;
import io.cmdemux.pods.PodPruner;
import io.cmdemux.pods.PodRegistry;
import io.cmdemux.pods.PodStore;
import io.cmdemux.dataplane.dispatch.Dispatcher;
import io.cmdemux.dataplane.metrics.Metrics;
import io.cmdemux.dataplane.source.NftIngressGuard;
import io.cmdemux.dataplane.pipeline.Pipeline;
import io.cmdemux.dataplane.reply.RejLimiter;
import io.cmdemux.dataplane.cm.Sessions;
import io.cmdemux.dataplane.source.SoftPortTap;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * `cmdemux serve`: live topology and GID tables, the control API, one tap per soft RDMA port, the
 * nftables rule that makes the ports steal RoCE frames, metrics. Closing it undoes all of that.
 */
public final class Daemon implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Daemon.class);

    /**
     * Everything `serve` can be told, each knob once (docs/SERVE.md lists them with the option that sets each).
     *
     * @param control the control sockets: the host socket and its group, the name in every namespace, the limits
     * @param podsDir where pod registrations are kept (null: beside the control socket, /run/cmdemux/pods)
     * @param nfdFeaturesDir Node Feature Discovery's features.d directory to keep the node's labels in (null: none)
     * @param observe whether to observe the kernel's own RDMA CM decisions (issue 18) where the kernel allows it
     * @param disagreementsDir where a disagreement between the kernel and cmdemux saves the host's state (null: none)
     * @param status where the status page is served: {@link StatusAt#ON_METRICS}, its own address, or nowhere
     * @param standby when another daemon serves the control socket: wait, warm, and take over when it ends
     *     (else such a start is refused)
     */
    public record Config(List<SoftPortSpec> ports, ResolverMode mode, ControlServer.Config control,
            InetSocketAddress metrics, boolean nft,
            double rejPerSecond, long cacheSize, Duration duplicateWindow, Sessions.Config sessions, Path pathConfig,
                    Path podsDir, Path nfdFeaturesDir, boolean observe, Path disagreementsDir, StatusAt status,
                    boolean standby) {}

    /**
     * Where the status page goes. It names pods, namespaces, addresses and the last decisions, so on a node
     * whose metrics address other tenants can reach (a DaemonSet's node IP) it belongs on loopback or nowhere.
     *
     * @param address its own address, or null: on the metrics address ({@code serve} when enabled)
     */
    public record StatusAt(boolean enabled, InetSocketAddress address) {
        public static final StatusAt ON_METRICS = new StatusAt(true, null);
        public static final StatusAt OFF = new StatusAt(false, null);
    }

    private final Config config;
    private final Metrics metrics = new Metrics();
    /** The last decisions, for the status page. */
    private final DecisionLog decisions = new DecisionLog(100);
    private final NetnsExecutor executor = new NetnsExecutor(2);
    /** The CNI plugin's reads of pod namespaces: an ADD must not queue behind the watcher dumping new namespaces. */
    private final NetnsExecutor cniExecutor = new NetnsExecutor(2);
    private final NetnsDiscovery discovery = new NetnsDiscovery();
    private final List<SoftRocePort> softPorts = new ArrayList<>();
    private final List<SoftPortTap> taps = new ArrayList<>();
    private final AtomicLong rdmaGeneration = new AtomicLong();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile RdmaTopology rdma = RdmaTopology.empty();
    private volatile boolean ready;
    private TopologyWatcher watcher;
    private ControlServer control;
    private Sessions sessions;
    private PathRecordService paths;
    private java.util.concurrent.ScheduledExecutorService pathStats;
    private NftIngressGuard nft;
    private PodRegistry pods;
    private HttpEndpoints http;
    private InetSocketAddress httpAddress;
    private HttpEndpoints statusHttp;
    private InetSocketAddress statusAddress;
    private volatile NodeFeatures features;
    private KernelObserver observer;
    private ServeLock lock;

    public Daemon(Config config) {
        this.config = config;
    }

    HostState state() {
        return new HostState(watcher.current(), rdma, control.listeners());
    }

    Metrics metrics() {
        return metrics;
    }

    /** The topology with every change the kernel announced before this call: what a CLI verb answered here reads. */
    public TopologySnapshot topologyNow() {
        catchUp();
        return watcher.current();
    }

    /** CLI messages go to {@code verbs} from now on (until then they are EOPNOTSUPP, and clients run the verb). */
    public void answerCli(CliHandler verbs) {
        control.onCli(verbs);
    }

    /** Before a tap decides a batch: the topology with every change announced by then (or counted as not). */
    private void catchUp() {
        if (!watcher.catchUp()) {
            metrics.topologyBehind();
        }
    }

    public InetSocketAddress httpAddress() {
        return httpAddress;
    }

    /** Where the status page is: the metrics address, its own, or null when it is off. */
    public InetSocketAddress statusAddress() {
        if (!config.status().enabled()) {
            return null;
        }
        return statusAddress != null ? statusAddress : httpAddress;
    }

    public void start() throws Exception {
        watcher = new TopologyWatcher(discovery, executor);
        watcher.start();
        for (SoftPortSpec spec : config.ports()) {
            if (spec.resolve(watcher.current()).isEmpty()) {
                throw new java.io.IOException("--rdma-port " + spec + ": there is no link " + spec.where());
            }
            SoftRocePort p = new SoftRocePort(spec);
            p.addListener(d -> publishRdma());
            p.attach(watcher);
            softPorts.add(p);
        }
        publishRdma();
        // Up to here nothing is another daemon's to hold: a standby has its JVM, its classes and a live topology
        // ready when the one serving ends. From here on it all is (the sockets, the taps, the nftables rule, the
        // RDMA_NL_LS and HTTP ports), and the pods directory is the serving daemon's to write.
        takeTheLock();
        NetnsId host = watcher.current().host();
        pods = new PodRegistry(config.podsDir() != null ? new PodStore(config.podsDir())
                : PodStore.besideSocket(config.control().hostSocket()), host);
        pods.load();
        watcher.addListener(new PodPruner(pods)::onTopology);
        LiveRdmaState live = new LiveRdmaState(watcher, this::softDevices,
                SysfsLayout.live(SysfsLayout.LIVE_ROOT), cniExecutor);
        CniService cni = new CniService(host, live, pods);
        control = ControlServer.start(config.control(), watcher, discovery, executor,
                new Queries(this::state, () -> pods.directory()), cni);
        RejLimiter limiter = new RejLimiter(config.rejPerSecond());
        long caGuid = rdma.devices().isEmpty() ? 0 : rdma.devices().get(0).nodeGuid();
        sessions = new Sessions(config.sessions(), control, metrics, caGuid);
        Dispatcher dispatcher = new Dispatcher(control, metrics, limiter, config.duplicateWindow(), sessions);
        Pipeline pipeline = new Pipeline(this::state, new DecisionCache(config.cacheSize()), config.mode(),
                config.nft(), dispatcher, sessions, limiter, metrics, decisions);
        List<String> hostNetdevs = new ArrayList<>();
        for (SoftRocePort p : softPorts) {
            SoftPortSpec spec = p.spec();
            LinkRef ref = spec.resolve(watcher.current()).orElseThrow();
            NetnsState ns = watcher.current().namespace(ref.netns());
            PacketSocket socket = ns.host() ? SoftPortTap.openSocket(ref.ifindex())
                    : executor.call(pathOf(ns), () -> SoftPortTap.openSocket(ref.ifindex()));
            taps.add(new SoftPortTap(spec.name(), spec.netdev(), socket, pipeline, metrics, this::catchUp));
            if (ns.host()) {
                hostNetdevs.add(spec.netdev());
            } else {
                log.warn("soft port {} is on {} in another namespace: its frames are tapped,"
                        + " but the nftables rule that hides them from the pods is only installed for host netdevs",
                        spec.name(), spec.where());
            }
        }
        if (config.nft() && !hostNetdevs.isEmpty()) {
            nft = new NftIngressGuard(hostNetdevs);
            nft.install();
        }
        metrics.gauge("topology_generation", () -> watcher.current().generation());
        metrics.gauge("namespaces", () -> watcher.current().namespaces().size());
        metrics.gauge("listeners", () -> control.listeners().all().size());
        metrics.gauge("consumers", () -> control.stats().connections());
        startPathRecords();
        http = new HttpEndpoints();
        http.route("/metrics", () -> new HttpEndpoints.Page(200, "text/plain; version=0.0.4; charset=utf-8",
                metrics.scrape().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        http.route("/healthz", () -> HttpEndpoints.Page.text(200, "ok\n"));
        http.route("/readyz", () -> ready ? HttpEndpoints.Page.text(200, "ready\n")
                : HttpEndpoints.Page.text(503, "starting\n"));
        observer = new KernelObserver(new KernelDecisionMetrics(metrics.registry(), java.time.Clock.systemUTC()),
                () -> pods.directory(), config.disagreementsDir(), SysfsLayout.live(SysfsLayout.LIVE_ROOT),
                java.time.Clock.systemUTC());
        if (config.observe()) {
            observer.startLive(new LiveHost(watcher, SysfsLayout.live(SysfsLayout.LIVE_ROOT)),
                    KernelBtf.SYS_KERNEL_BTF);
        } else {
            observer.off("--no-observe");
        }
        metrics.gauge("kernel_observer_running", () -> observer.running() ? 1 : 0);
        StatusSite site = new StatusSite(this::state, control, metrics, decisions, config.mode(), observer);
        if (config.status().enabled() && config.status().address() == null) {
            site.install(http);
        } else if (config.status().enabled()) {
            statusHttp = new HttpEndpoints();
            site.install(statusHttp);
            statusAddress = statusHttp.start(config.status().address());
        }
        httpAddress = http.start(config.metrics());
        // before ready: /readyz and the log line below then mean that the first ADD finds the CNI path warm
        cni.warmUp(config.control().hostSocket());
        if (config.nfdFeaturesDir() != null) {
            NodeFeatures f = new NodeFeatures(config.nfdFeaturesDir());
            watcher.addListener(t -> f.update(t, rdma));
            features = f;
            f.update(watcher.current(), rdma);
        }
        ready = true;
        log.info("serving {} soft RDMA port(s) in {} mode; kernel observer {}; control socket {},"
                + " metrics http://{}:{}/metrics", taps.size(), config.mode().cliName(), observer.state(),
                config.control().hostSocket(), httpAddress.getHostString(), httpAddress.getPort());
    }

    /** The control socket's lock: at once, or, in standby, once the daemon that holds it has ended. */
    private void takeTheLock() throws IOException {
        Path lockFile = ServeLock.besideSocket(config.control().hostSocket());
        lock = ServeLock.take(lockFile, config.standby(), holder -> log.warn("standby: cmdemux serve (pid {})"
                + " serves {}; taking over when it ends (the lock on {})", ServeLock.pidText(holder),
                config.control().hostSocket(), lockFile));
        if (lock.tookOverFrom() != 0) {
            log.warn("taking over: the daemon that held {} (pid {}) has ended", lockFile,
                    ServeLock.pidText(lock.tookOverFrom()));
        }
    }

    /**
     * The RDMA_NL_LS responder (issue 9). The kernel asks it only in the host namespace and only if it
     * has NETLINK_RDMA; where it has not, say so once and in the metrics, and serve the rest.
     */
    private void startPathRecords() {
        try {
            io.cmdemux.pathrecord.PathRecordConfig pc =
                    io.cmdemux.pathrecord.PathRecordConfig.load(config.pathConfig());
            paths = PathRecordService.start(pc, state(), null);
            watcher.addListener(t -> paths.onHostState(state()));
            var st = paths.responder().state();
            if (st == io.cmdemux.pathrecord.Responder.State.OFF) {
                log.warn("path-record responder off: {}", paths.responder().stateDetail());
            } else {
                log.info("path-record responder {}: {}", st.name().toLowerCase(), paths.responder().stateDetail());
            }
            pathStats = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "cmdemux-path-stats");
                t.setDaemon(true);
                return t;
            });
            pathStats.scheduleWithFixedDelay(() -> {
                try {
                    PathStatsFile.write(pc.statsFile(), paths);
                } catch (IOException | RuntimeException e) {
                    log.debug("path stats: {}", e.toString());
                }
            }, 0, 2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (IOException | RuntimeException e) {
            log.warn("path-record responder not started: {}", e.getMessage());
        }
        metrics.gauge("path_responder_listening", () -> paths != null
                && paths.responder().state() == io.cmdemux.pathrecord.Responder.State.LISTENING ? 1 : 0);
    }

    private static String pathOf(NetnsState ns) {
        return ns.names().isEmpty() ? "/proc/self/ns/net" : "/run/netns/" + ns.names().get(0);
    }

    private List<RdmaDevice> softDevices() {
        return rdma.devices();
    }

    private synchronized void publishRdma() {
        List<RdmaDevice> devices = new ArrayList<>();
        for (SoftRocePort p : softPorts) {
            devices.add(p.device());
        }
        rdma = new RdmaTopology(rdmaGeneration.incrementAndGet(), RdmaTopology.NetnsMode.SHARED, devices);
        NodeFeatures f = features;
        if (f != null) {
            f.update(watcher.current(), rdma);
        }
    }

    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void close() {
        long t0 = System.nanoTime();
        NodeFeatures f = features;
        if (f != null) {
            features = null;
            f.close(); // first: a scheduler must stop choosing this node before the sockets go
        }
        if (observer != null) {
            observer.close(); // removes our tracefs instance and kprobe
        }
        for (SoftPortTap t : taps) {
            t.close();
        }
        if (nft != null) {
            try {
                nft.close();
            } catch (IOException e) {
                log.warn("removing the nftables rule: {}", e.getMessage());
            }
        }
        if (control != null) {
            control.close();
        }
        if (sessions != null) {
            sessions.close();
        }
        if (pathStats != null) {
            pathStats.shutdownNow();
        }
        if (paths != null) {
            paths.close();
        }
        if (http != null) {
            http.close();
        }
        if (statusHttp != null) {
            statusHttp.close();
        }
        if (watcher != null) {
            watcher.close();
        }
        executor.close();
        cniExecutor.close();
        if (lock != null) {
            try {
                lock.close(); // last: a standby that takes over must not meet our rule or socket on its way
            } catch (IOException e) {
                log.warn("releasing {}: {}", ServeLock.besideSocket(config.control().hostSocket()), e.getMessage());
            }
        }
        log.info("stopped in {} ms", (System.nanoTime() - t0) / 1_000_000);
        stopped.countDown();
    }
}
