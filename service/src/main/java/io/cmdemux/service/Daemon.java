package io.cmdemux.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.SoftPortSpec;
import io.cmdemux.gid.SoftRocePort;
import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.ingress.resolve.Decision;
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
import io.cmdemux.netdev.PacketSocket;
import io.cmdemux.service.cni.CniService;
import io.cmdemux.service.cni.LiveRdmaState;
import io.cmdemux.service.control.ConsumerInfo;
import io.cmdemux.service.control.ControlServer;
import io.cmdemux.service.control.QueryKind;
import io.cmdemux.service.control.RequestRefused;
import io.cmdemux.service.serve.DecisionLog;
import io.cmdemux.service.pods.PodJson;
import io.cmdemux.service.pods.PodPruner;
import io.cmdemux.service.pods.PodRegistration;
import io.cmdemux.service.pods.PodRegistry;
import io.cmdemux.service.pods.PodStore;
import io.cmdemux.service.serve.Dispatcher;
import io.cmdemux.service.serve.HttpEndpoints;
import io.cmdemux.service.serve.Metrics;
import io.cmdemux.service.serve.NftIngressGuard;
import io.cmdemux.service.serve.Pipeline;
import io.cmdemux.service.serve.RejLimiter;
import io.cmdemux.service.serve.Sessions;
import io.cmdemux.service.serve.SoftPortTap;
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
final class Daemon implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Daemon.class);

    /** @param podsDir where pod registrations are kept (null: beside the control socket, /run/cmdemux/pods) */
    record Config(List<SoftPortSpec> ports, ResolverMode mode, Path controlSocket, InetSocketAddress metrics, boolean nft,
            double rejPerSecond, long cacheSize, Duration duplicateWindow, int maxSessions, long timeWaitMillis, long maxCmTimeoutMillis,
            Path pathConfig, Path podsDir) {}

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

    Daemon(Config config) {
        this.config = config;
    }

    HostState state() {
        return new HostState(watcher.current(), rdma, control.listeners());
    }

    Metrics metrics() {
        return metrics;
    }

    InetSocketAddress httpAddress() {
        return httpAddress;
    }

    void start() throws Exception {
        watcher = new TopologyWatcher(discovery, executor);
        watcher.start();
        for (SoftPortSpec spec : config.ports()) {
            if (spec.resolve(watcher.current()).isEmpty()) {
                throw new EnvironmentException("--rdma-port " + spec + ": there is no link " + spec.where());
            }
            SoftRocePort p = new SoftRocePort(spec);
            p.addListener(d -> publishRdma());
            p.attach(watcher);
            softPorts.add(p);
        }
        publishRdma();
        NetnsId host = watcher.current().host();
        pods = new PodRegistry(config.podsDir() != null ? new PodStore(config.podsDir()) : PodStore.besideSocket(config.controlSocket()), host);
        pods.load();
        watcher.addListener(new PodPruner(pods)::onTopology);
        LiveRdmaState live = new LiveRdmaState(watcher, this::softDevices, SysfsLayout.live(SysfsLayout.LIVE_ROOT), cniExecutor);
        control = ControlServer.start(ControlServer.Config.defaults().withHostSocket(config.controlSocket()), watcher, discovery, executor,
                this::query, new CniService(host, live, pods));
        RejLimiter limiter = new RejLimiter(config.rejPerSecond());
        long caGuid = rdma.devices().isEmpty() ? 0 : rdma.devices().get(0).nodeGuid();
        sessions = new Sessions(new Sessions.Config(config.maxSessions(), config.timeWaitMillis(), config.maxCmTimeoutMillis()), control, metrics, caGuid);
        Dispatcher dispatcher = new Dispatcher(control, metrics, limiter, config.duplicateWindow(), sessions);
        Pipeline pipeline = new Pipeline(this::state, new DecisionCache(config.cacheSize()), config.mode(), config.nft(), dispatcher, sessions, limiter, metrics, decisions);
        List<String> hostNetdevs = new ArrayList<>();
        for (SoftRocePort p : softPorts) {
            SoftPortSpec spec = p.spec();
            LinkRef ref = spec.resolve(watcher.current()).orElseThrow();
            NetnsState ns = watcher.current().namespace(ref.netns());
            PacketSocket socket = ns.host() ? SoftPortTap.openSocket(ref.ifindex())
                    : executor.call(pathOf(ns), () -> SoftPortTap.openSocket(ref.ifindex()));
            taps.add(new SoftPortTap(spec.name(), spec.netdev(), socket, pipeline, metrics));
            if (ns.host()) {
                hostNetdevs.add(spec.netdev());
            } else {
                log.warn("soft port {} is on {} in another namespace: its frames are tapped, but the nftables rule that hides them "
                        + "from the pods is only installed for host netdevs", spec.name(), spec.where());
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
        http.route("/readyz", () -> ready ? HttpEndpoints.Page.text(200, "ready\n") : HttpEndpoints.Page.text(503, "starting\n"));
        new StatusSite(this::state, control, metrics, decisions, config.mode()).install(http);
        httpAddress = http.start(config.metrics());
        ready = true;
        log.info("serving {} soft RDMA port(s) in {} mode; control socket {}, metrics http://{}:{}/metrics", taps.size(),
                config.mode().cliName(), config.controlSocket(), httpAddress.getHostString(), httpAddress.getPort());
    }

    /**
     * The RDMA_NL_LS responder (issue 9). The kernel asks it only in the host namespace and only if it
     * has NETLINK_RDMA; where it has not, say so once and in the metrics, and serve the rest.
     */
    private void startPathRecords() {
        try {
            io.cmdemux.pathrecord.PathRecordConfig pc = config.pathConfig() == null ? io.cmdemux.pathrecord.PathRecordConfig.defaults()
                    : PathCommand.config(config.pathConfig());
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
                    paths.writeStats(pc.statsFile());
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
    }

    private JsonNode query(QueryKind kind, ObjectNode args, ConsumerInfo caller) throws RequestRefused {
        HostState s = state();
        switch (kind) {
            case TOPOLOGY:
                return TopologyView.json(s.topology(), pods.directory());
            case GIDS:
                return GidView.json(s.topology(), s.rdma(), args.path("device").isTextual() ? args.get("device").asText() : null, pods.directory());
            case EXPLAIN:
                return explain(s, args);
            case PODS:
                return podsJson(args);
            default:
                throw new RequestRefused(95, "query " + kind + " is not answered by the daemon");
        }
    }

    /** QUERY pods: every registration, or those of {"namespace": .., "name": ..} (either may be left out). */
    private JsonNode podsJson(ObjectNode args) {
        String ns = args.path("namespace").isTextual() ? args.get("namespace").asText() : null;
        String name = args.path("name").isTextual() ? args.get("name").asText() : null;
        com.fasterxml.jackson.databind.node.ArrayNode out = TopologyView.JSON.createArrayNode();
        for (PodRegistration r : pods.directory().registrations()) {
            if ((ns == null || ns.equals(r.pod().namespace())) && (name == null || name.equals(r.pod().name()))) {
                out.add(PodJson.json(r));
            }
        }
        return out;
    }

    private JsonNode explain(HostState s, ObjectNode args) throws RequestRefused {
        try {
            ExplainCommand e = new ExplainCommand();
            e.dst = args.path("dst").asText(null);
            e.src = args.path("src").asText("0.0.0.0:0");
            if (e.dst == null) {
                throw new IllegalArgumentException("explain needs \"dst\": \"IP:PORT\"");
            }
            e.device = args.path("device").isTextual() ? args.get("device").asText() : null;
            e.ps = args.path("ps").asText("tcp");
            e.dmac = args.path("dmac").isTextual() ? args.get("dmac").asText() : null;
            e.vlan = args.path("vlan").canConvertToInt() ? args.get("vlan").asInt() : null;
            var meta = e.meta(s);
            Decision k = io.cmdemux.ingress.resolve.Resolver.resolve(s, meta, ResolverMode.KERNEL);
            Decision n = io.cmdemux.ingress.resolve.Resolver.resolve(s, meta, ResolverMode.NETSTACK);
            return DecisionView.bothJson(s.topology(), k, n);
        } catch (IllegalArgumentException ex) {
            throw new RequestRefused(22, ex.getMessage());
        }
    }

    void awaitStop() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void close() {
        long t0 = System.nanoTime();
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
        if (watcher != null) {
            watcher.close();
        }
        executor.close();
        cniExecutor.close();
        log.info("stopped in {} ms", (System.nanoTime() - t0) / 1_000_000);
        stopped.countDown();
    }
}
