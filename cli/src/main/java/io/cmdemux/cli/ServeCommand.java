package io.cmdemux.cli;

import io.cmdemux.control.protocol.Wire;
import io.cmdemux.control.server.ControlServer;
import io.cmdemux.daemon.Daemon;
import io.cmdemux.gid.SoftPortSpec;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.dataplane.cm.Sessions;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"The host daemon: receives RDMA CM requests on soft RDMA ports and delivers each to the"
                + " listener in the",
                "namespace the kernel's rules (or the netstack's) choose, answers the rest with REJ,"
                + " serves the control API",
                "(host socket and @cmdemux in every namespace) and Prometheus metrics, and observes what the"
                + " kernel's own RDMA CM",
                "decides, next to cmdemux's prediction. Runs as root; SIGTERM stops it."})
final class ServeCommand implements Callable<Integer> {
    @Mixin
    Terminal terminal = new Terminal();

    @Option(names = "--rdma-port", paramLabel = "NAME=NETDEV[@NETNS][:v1,v2]",
            description = "a soft RoCE port (device NAME, port 1) on NETDEV; repeatable; without one, serve"
                    + " observes the kernel's RDMA CM and answers path queries and the control API")
    List<String> ports = new ArrayList<>();

    @Option(names = "--no-observe", description = "do not observe the kernel's own RDMA CM decisions (tracefs)")
    boolean noObserve;

    @Option(names = "--disagreements-dir", paramLabel = "DIR",
            description = "where a disagreement between the kernel and cmdemux's kernel mode saves the host's"
                    + " state, at most once a minute (default /var/lib/cmdemux/disagreements)")
    Path disagreementsDir = Path.of("/var/lib/cmdemux/disagreements");

    @Option(names = "--mode", paramLabel = "kernel|netstack", description = "which resolver decides (default kernel)")
    String mode = "kernel";

    @Option(names = "--config", paramLabel = "FILE",
            description = "settings from FILE, one 'name = value' per line,"
                    + " named as these long options without the dashes (docs/SERVE.md); the command line wins")
    Path config;

    @Option(names = "--control-socket", paramLabel = "PATH",
            description = "host control socket (default /run/cmdemux/cmdemux.sock)")
    Path controlSocket = Path.of(Wire.DEFAULT_HOST_SOCKET);

    @Option(names = "--control-socket-group", paramLabel = "GROUP",
            description = "the group that owns the host control socket; its members may use it (mode 0660; default:"
                    + " root's group only)")
    String controlSocketGroup;

    @Option(names = "--abstract-name", paramLabel = "NAME",
            description = "the abstract control socket opened in every namespace, without the leading NUL"
                    + " (default cmdemux)")
    String abstractName = Wire.ABSTRACT_NAME;

    @Option(names = "--queries-from-pods",
            description = "let consumers in pods QUERY topology, explain, gids and pods, which show every namespace"
                    + " (default: host only)")
    boolean queriesFromPods;

    @Option(names = "--control-threads", paramLabel = "N",
            description = "event loops for all control sockets (default 2)")
    int controlThreads = ControlServer.Config.defaults().eventLoopThreads();

    @Option(names = "--max-consumers-per-namespace", paramLabel = "N",
            description = "control connections one namespace may hold; more are closed (default 128)")
    int maxConsumersPerNamespace = 128;

    @Option(names = "--max-listeners-per-consumer", paramLabel = "N",
            description = "LISTEN beyond this is ENOSPC (default 1024)")
    int maxListenersPerConsumer = 1024;

    @Option(names = "--max-listeners-per-namespace", paramLabel = "N",
            description = "LISTEN beyond this is ENOSPC, whoever in the namespace asks (default 4096)")
    int maxListenersPerNamespace = 4096;

    @Option(names = "--max-outstanding-per-consumer", paramLabel = "N",
            description = "delivered requests a consumer may hold unanswered; beyond them its new requests are"
                    + " dropped as from a full backlog, and the requester retries (default 4096)")
    int maxOutstandingPerConsumer = 4096;

    @Option(names = "--stalled-frame", paramLabel = "MS",
            description = "a control frame that stays incomplete this long closes its connection (default 10000)")
    long stalledFrameMs = 10_000;

    @Option(names = "--metrics", paramLabel = "HOST:PORT",
            description = "metrics and health endpoints (default 127.0.0.1:9464)")
    String metrics = "127.0.0.1:9464";

    @Option(names = "--status", paramLabel = "HOST:PORT|metrics|off",
            description = "the status page: on the metrics address (metrics, the default), on its own address, or off;"
                    + " it names pods and addresses, so keep it off addresses other tenants reach")
    String status = "metrics";

    @Option(names = "--no-nft",
            description = "do not install the nftables rule that hides RoCE frames from the pods' own stacks")
    boolean noNft;

    @Option(names = "--rej-per-second", paramLabel = "N",
            description = "REJs per second to one source at most (default 1000)")
    double rejPerSecond = 1000;

    @Option(names = "--cache-size", paramLabel = "N", description = "decision cache entries (default 100000)")
    long cacheSize = 100_000;

    @Option(names = "--duplicate-window", paramLabel = "MS",
            description = "a REQ with the same comm ID and CA GUID within this time is a retransmission"
                    + " (default 60000)")
    long duplicateWindowMs = 60_000;

    @Option(names = "--max-sessions", paramLabel = "N",
            description = "connections being set up or established at most; a REQ beyond them is dropped silently,"
            + " as ucma drops one its listener has no room for, so that the peer retries (default 262144;"
            + " 48 to 96 bytes of index each, taken at start, and about 165 bytes of table each, taken as they come)")
    int maxSessions = 1 << 18; // 12 MiB of index at start: issue 22's idle footprint (docs/PERFORMANCE.md)

    @Option(names = "--time-wait", paramLabel = "MS",
            description = "how long a closed connection's comm ID stays reserved (default 1000)")
    long timeWaitMs = 1000;

    @Option(names = "--max-cm-timeout", paramLabel = "MS",
            description = "cap on the CM response timeouts peers ask for, between REP and DREQ retries (default 60000)")
    long maxCmTimeoutMs = 60_000;

    @Option(names = "--path-config", paramLabel = "F",
            description = "path-record responder configuration (docs/PATHRECORD.md); default: the built-in defaults")
    Path pathConfig;

    @Option(names = "--pods-dir", paramLabel = "DIR",
            description = "where the pods cmdemux-cni registers are kept across restarts (default:"
                    + " beside the control socket, /run/cmdemux/pods)")
    Path podsDir;

    @Option(names = "--nfd-features-dir", paramLabel = "DIR",
            description = "keep this node's RDMA CM labels in DIR/cmdemux for Node Feature Discovery's local source"
                    + " (its features.d, /etc/kubernetes/node-feature-discovery/features.d); default: none")
    Path nfdFeaturesDir;

    @Option(names = "--standby",
            description = "when another daemon serves this control socket, start, follow the topology and wait;"
                    + " take over as soon as it ends (a daemon started without it is refused instead)")
    boolean standby;

    /** Set on the copy that has read --config, so that it does not read it again. */
    private boolean configRead;

    /** How the daemon runs the read verbs it answers: the one-shot entry point, which makes this command. */
    private final DaemonVerbs.Program program;

    ServeCommand(DaemonVerbs.Program program) {
        this.program = program;
    }

    @Override
    public Integer call() throws Exception {
        if (config != null && !configRead) {
            return withConfigFile();
        }
        // Netty registers its JFR events with the first buffer it allocates, which starts JFR's type library: some
        // 0.13 s of the daemon's way to ready (docs/PERFORMANCE.md, "The daemon's start").
        // -Dio.netty.jfr.enabled=true brings them back for a profile.
        if (System.getProperty("io.netty.jfr.enabled") == null) {
            System.setProperty("io.netty.jfr.enabled", "false");
        }
        if (ports.isEmpty() && noObserve) {
            throw new IllegalArgumentException("serve with --no-observe needs a soft port: --rdma-port NAME=NETDEV"
                    + " (or rdma-port in the --config file)");
        }
        List<SoftPortSpec> specs = new ArrayList<>();
        for (String p : ports) {
            specs.add(SoftPortSpec.parse(p));
        }
        ResolverMode m = switch (mode.toLowerCase()) {
            case "kernel" -> ResolverMode.KERNEL;
            case "netstack" -> ResolverMode.NETSTACK;
            default -> throw new IllegalArgumentException("--mode " + mode + ": expected kernel or netstack");
        };
        if (maxSessions < 1 || maxSessions > Sessions.MAX_SESSIONS) {
            throw new IllegalArgumentException("--max-sessions " + maxSessions + ": expected 1 to "
                    + Sessions.MAX_SESSIONS);
        }
        InetSocketAddress http = hostPort("--metrics", metrics);
        Daemon.StatusAt statusAt = switch (status) {
            case "metrics" -> Daemon.StatusAt.ON_METRICS;
            case "off" -> Daemon.StatusAt.OFF;
            default -> new Daemon.StatusAt(true, hostPort("--status", status));
        };
        ControlServer.Config control = new ControlServer.Config(controlSocket, controlSocketGroup, abstractName,
                queriesFromPods, controlThreads, maxConsumersPerNamespace, maxListenersPerConsumer,
                maxListenersPerNamespace, maxOutstandingPerConsumer, stalledFrameMs);
        Daemon d = new Daemon(new Daemon.Config(specs, m, control, http, !noNft, rejPerSecond, cacheSize,
                Duration.ofMillis(duplicateWindowMs), new Sessions.Config(maxSessions, timeWaitMs, maxCmTimeoutMs),
                pathConfig, podsDir, nfdFeaturesDir, !noObserve, disagreementsDir, statusAt, standby));
        Thread hook = new Thread(d::close, "cmdemux-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            d.start();
        } catch (Exception e) {
            Runtime.getRuntime().removeShutdownHook(hook);
            d.close();
            throw e;
        }
        // The one-shot read verbs are answered here once their classes are loaded and picocli's model building has
        // run a few times (some 0.5 s of one core). Not more: a kubelet's first CNI ADD may come meanwhile, on 2 cores.
        DaemonVerbs verbs = new DaemonVerbs(d::topologyNow, Path.of("/proc"), program);
        Thread warm = new Thread(() -> {
            verbs.warmUp(3);
            d.answerCli(verbs);
        }, "cmdemux-cli-warm-up");
        warm.setDaemon(true);
        warm.start();
        String base = "http://" + d.httpAddress().getHostString() + ":" + d.httpAddress().getPort();
        InetSocketAddress page = d.statusAddress();
        terminal.err().println("cmdemux: serving; status page "
                + (page == null ? "off" : "on http://" + page.getHostString() + ":" + page.getPort() + "/")
                + ", metrics on " + base + "/metrics");
        d.awaitStop();
        return ExitCode.OK;
    }

    private static InetSocketAddress hostPort(String option, String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(option + " " + value + ": expected HOST:PORT");
        }
        try {
            return new InetSocketAddress(value.substring(0, colon), Integer.parseInt(value.substring(colon + 1)));
        } catch (IllegalArgumentException e) { // NumberFormatException, a port out of range
            throw new IllegalArgumentException(option + " " + value + ": expected HOST:PORT (" + e.getMessage() + ")");
        }
    }

    /**
     * picocli fills options from a file only through a default provider, which must be in place before the
     * command line is parsed, and the file's name is on that command line: so a second ServeCommand parses
     * the same arguments with the file's settings as its defaults, and runs.
     */
    private int withConfigFile() throws Exception {
        ServeCommand again = new ServeCommand(program);
        again.configRead = true;
        CommandLine cl = new CommandLine(again);
        cl.setOut(terminal.out());
        cl.setErr(terminal.err());
        cl.setDefaultValueProvider(ConfigFile.defaults(config, cl.getCommandSpec(),
                Set.of("config", "help", "version")));
        // The parse result holds the whole command line; serve's own arguments follow its name, and nothing
        // before it takes a value (cmdemux's own options are -h and -V).
        List<String> all = terminal.mixee.commandLine().getParseResult().originalArgs();
        int at = all.indexOf(terminal.mixee.name());
        cl.parseArgs(all.subList(at + 1, all.size()).toArray(String[]::new));
        return again.call();
    }
}
