package io.cmdemux.service;

import io.cmdemux.gid.SoftPortSpec;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.service.serve.Sessions;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"The host daemon: receives RDMA CM requests on soft RDMA ports and delivers each to the listener in the",
                "namespace the kernel's rules (or the netstack's) choose, answers the rest with REJ, serves the control API",
                "(host socket and @cmdemux in every namespace) and Prometheus metrics. Runs as root; SIGTERM stops it."})
final class ServeCommand implements Callable<Integer> {
    @Option(names = "--rdma-port", paramLabel = "NAME=NETDEV[@NETNS][:v1,v2]", required = true,
            description = "a soft RoCE port (device NAME, port 1) on NETDEV; repeatable")
    List<String> ports = new ArrayList<>();

    @Option(names = "--mode", paramLabel = "kernel|netstack", description = "which resolver decides (default kernel)")
    String mode = "kernel";

    @Option(names = "--control-socket", paramLabel = "PATH", description = "host control socket (default /run/cmdemux/cmdemux.sock)")
    Path controlSocket = Path.of("/run/cmdemux/cmdemux.sock");

    @Option(names = "--metrics", paramLabel = "HOST:PORT", description = "metrics and health endpoints (default 127.0.0.1:9464)")
    String metrics = "127.0.0.1:9464";

    @Option(names = "--no-nft", description = "do not install the nftables rule that hides RoCE frames from the pods' own stacks")
    boolean noNft;

    @Option(names = "--rej-per-second", paramLabel = "N", description = "REJs per second to one source at most (default 1000)")
    double rejPerSecond = 1000;

    @Option(names = "--cache-size", paramLabel = "N", description = "decision cache entries (default 100000)")
    long cacheSize = 100_000;

    @Option(names = "--duplicate-window", paramLabel = "MS",
            description = "a REQ with the same comm ID and CA GUID within this time is a retransmission (default 60000)")
    long duplicateWindowMs = 60_000;

    @Option(names = "--max-sessions", paramLabel = "N", description = "connections being set up or established at most; a REQ beyond them is dropped silently, as ucma drops one its listener has no room for, so that the peer retries (default 1048576; 48 to 96 bytes of index each, taken at start, and about 165 bytes of table each, taken as they come)")
    int maxSessions = 1 << 20;

    @Option(names = "--time-wait", paramLabel = "MS", description = "how long a closed connection's comm ID stays reserved (default 1000)")
    long timeWaitMs = 1000;

    @Option(names = "--max-cm-timeout", paramLabel = "MS",
            description = "cap on the CM response timeouts peers ask for, between REP and DREQ retries (default 60000)")
    long maxCmTimeoutMs = 60_000;

    @Option(names = "--path-config", paramLabel = "F",
            description = "path-record responder configuration (docs/PATHRECORD.md); default: the built-in defaults")
    Path pathConfig;

    @Option(names = "--pods-dir", paramLabel = "DIR",
            description = "where the pods cmdemux-cni registers are kept across restarts (default: beside the control socket, /run/cmdemux/pods)")
    Path podsDir;

    @Override
    public Integer call() throws Exception {
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
            throw new IllegalArgumentException("--max-sessions " + maxSessions + ": expected 1 to " + Sessions.MAX_SESSIONS);
        }
        int colon = metrics.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("--metrics " + metrics + ": expected HOST:PORT");
        }
        InetSocketAddress http = new InetSocketAddress(metrics.substring(0, colon), Integer.parseInt(metrics.substring(colon + 1)));
        Daemon d = new Daemon(new Daemon.Config(specs, m, controlSocket, http, !noNft, rejPerSecond, cacheSize, Duration.ofMillis(duplicateWindowMs),
                maxSessions, timeWaitMs, maxCmTimeoutMs, pathConfig, podsDir));
        Thread hook = new Thread(d::close, "cmdemux-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            d.start();
        } catch (Exception e) {
            Runtime.getRuntime().removeShutdownHook(hook);
            d.close();
            throw e;
        }
        String base = "http://" + d.httpAddress().getHostString() + ":" + d.httpAddress().getPort();
        System.err.println("cmdemux: serving; status page on " + base + "/, metrics on " + base + "/metrics");
        d.awaitStop();
        return Main.EXIT_OK;
    }
}
