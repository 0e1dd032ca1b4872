package io.cmdemux.cli;

import io.cmdemux.pathrecord.PathRecordService;
import io.cmdemux.render.PathView;
import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.gid.Gid;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.gid.SysfsReader;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.TopologyWatcher;
import io.cmdemux.pathrecord.Answer;
import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.daemon.PathStatsFile;
import io.cmdemux.pathrecord.PathRecordConfig;
import io.cmdemux.pathrecord.PathResolver;
import io.cmdemux.pathrecord.Responder;
import io.cmdemux.pathrecord.ls.PathUse;
import io.cmdemux.pathrecord.source.PathSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "path", mixinStandardHelpOptions = true,
        description = {"SA path records the RDMA_NL_LS way: the records cmdemux would send the kernel,"
                + " per namespace policy,",
                "from the SA (libibumad) or a static dump_pr file. See docs/PATHRECORD.md."},
        subcommands = {PathCommand.Query.class, PathCommand.Stats.class, PathCommand.Serve.class})
final class PathCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new IllegalArgumentException("path needs a verb: query, stats or serve (cmdemux path --help)");
    }

    /** The configuration file, if any, under the command-line overrides. */
    static PathRecordConfig config(Path file) {
        try {
            return PathRecordConfig.load(file);
        } catch (IOException e) {
            throw new EnvironmentException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** The host state the origin is inferred from; a topology that cannot be read leaves every origin unknown. */
    static HostState hostState(RdmaOptions rdma, PrintWriter warnings) {
        try {
            RdmaSource.Loaded l = RdmaSource.load(rdma);
            for (String p : l.problems()) {
                warnings.println("cmdemux: " + p);
            }
            return new HostState(l.topology(), l.rdma(), ListenerTable.empty());
        } catch (EnvironmentException e) {
            warnings.println("cmdemux: warning: no topology (" + e.getMessage()
                    + "): every query's namespace is unknown");
            return new HostState(TopologySnapshot.of(0, new io.cmdemux.namespaces.NetnsId(0, 0), List.of(), List.of()),
                    RdmaTopology.empty(), ListenerTable.empty());
        }
    }

    @Command(name = "query", mixinStandardHelpOptions = true,
            description = {"The records the responder would send for one query, the rule that applied and the source"
                    + " (cache, SA or static).",
                    "Exit 1 when the answer is no path (denied, failed by policy, or none exists);"
                            + " 3 when the source cannot be asked."})
    static final class Query implements Callable<Integer> {
        @Mixin
        Terminal terminal = new Terminal();

        @Option(names = "--device", required = true, paramLabel = "D",
                description = "the RDMA device the query leaves from (header device_name)")
        String device;

        @Option(names = "--port", required = true, paramLabel = "P", description = "its port number")
        int port;

        @Option(names = "--sgid", required = true, paramLabel = "G", description = "source GID")
        String sgid;

        @Option(names = "--dgid", required = true, paramLabel = "G", description = "destination GID")
        String dgid;

        @Option(names = "--pkey", paramLabel = "K", description = "P_Key (PKEY attribute), e.g. 0x8001")
        String pkey;

        @Option(names = "--service-id", paramLabel = "S",
                description = "service ID (SERVICE_ID attribute), e.g. 0x1060000001d2f")
        String serviceId;

        @Option(names = "--tclass", paramLabel = "T", description = "traffic class (TCLASS attribute)")
        Integer tclass;

        @Option(names = "--qos-class", paramLabel = "Q", description = "QoS class (QOS_CLASS attribute)")
        Integer qosClass;

        @Option(names = "--path-use", paramLabel = "all|unidirectional|gmp", defaultValue = "all",
                description = "how the kernel would use the answer; decides the records' flags (default:"
                        + " ${DEFAULT-VALUE})")
        String pathUse;

        @Option(names = "--source", paramLabel = "auto|sa|static",
                description = "where records come from (default: the config's, else auto)")
        String source;

        @Option(names = "--static-file", paramLabel = "F",
                description = "an OpenSM dump_pr PathRecord dump (source static or auto)")
        Path staticFile;

        @Option(names = "--policy", paramLabel = "F",
                description = "a policy file (docs/PATHRECORD.md); default: the config's, else none")
        Path policy;

        @Option(names = "--config", paramLabel = "F", description = "a path-record config file (docs/PATHRECORD.md)")
        Path configFile;

        @Option(names = "--json", description = "machine-readable output")
        boolean json;

        @Mixin
        RdmaOptions rdma = new RdmaOptions();

        @Override
        public Integer call() throws Exception {
            PathUse use;
            try {
                use = PathUse.valueOf(pathUse.toUpperCase());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--path-use " + pathUse + " is not all, unidirectional or gmp");
            }
            PathQuery q = new PathQuery(device, port, gid(sgid, "--sgid"), gid(dgid, "--dgid"),
                    pkey == null ? OptionalInt.empty() : OptionalInt.of(number(pkey, "--pkey", 0xffff)),
                    serviceId == null ? OptionalLong.empty()
                    : OptionalLong.of(Long.parseUnsignedLong(strip(serviceId), serviceId.startsWith("0x") ? 16 : 10)),
                    tclass == null ? OptionalInt.empty() : OptionalInt.of(range(tclass, "--tclass", 0xff)),
                    qosClass == null ? OptionalInt.empty() : OptionalInt.of(range(qosClass, "--qos-class", 0xfff)),
                    use.reversible(), OptionalInt.empty());
            PathRecordConfig c = config(configFile);
            if (source != null || staticFile != null) {
                String s = source != null ? source : c.source();
                if (!PathRecordConfig.SOURCES.contains(s)) {
                    throw new IllegalArgumentException("--source " + s + " is not auto, sa or static");
                }
                c = c.withSource(s, staticFile);
            }
            if (policy != null) {
                c = c.withPolicyFile(policy);
            }
            HostState state = hostState(rdma, terminal.err());
            try (PathSource src = PathRecordService.source(c)) {
                PathResolver r = PathRecordService.resolver(c, () -> state, src, PathRecordService.policy(c, 1));
                PathResolver.Result res;
                try {
                    res = r.resolve(q).get(60, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    throw new EnvironmentException("path query failed: " + e.getMessage(), e);
                }
                if (json) {
                    terminal.out().println(PathView.JSON.writeValueAsString(PathView.answerJson(res, use)));
                } else {
                    terminal.out().print(PathView.answerText(res, use));
                }
                Answer a = res.answer();
                switch (a.kind()) {
                    case PATHS:
                        return ExitCode.OK;
                    case ERROR:
                        terminal.err().println("cmdemux: the " + c.source() + " source cannot answer: " + a.detail());
                        return ExitCode.ENVIRONMENT;
                    default:
                        String why = a.detail() == null ? PathView.kind(a.kind()) : a.detail();
                        terminal.err().println("cmdemux: no path: " + why);
                        return ExitCode.NO;
                }
            }
        }

        private static Gid gid(String text, String opt) {
            try {
                return Gid.parse(text);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(opt + " " + text + " is not a GID (e.g. fe80::2:c903:0:1)");
            }
        }

        private static String strip(String s) {
            return s.startsWith("0x") || s.startsWith("0X") ? s.substring(2) : s;
        }

        private static int number(String s, String opt, int max) {
            try {
                int v = Integer.decode(s);
                return range(v, opt, max);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(opt + " " + s + " is not a number");
            }
        }

        private static int range(int v, String opt, int max) {
            if (v < 0 || v > max) {
                throw new IllegalArgumentException(opt + " " + v + " outside 0.." + max);
            }
            return v;
        }
    }

    @Command(name = "stats", mixinStandardHelpOptions = true,
            description = {"The running responder's counters: queries, answers, cache hits and misses, latency,"
                    + " SA queries.",
                    "Read from the stats file `path serve` (or `serve`) writes every 2 s."})
    static final class Stats implements Callable<Integer> {
        @Mixin
        Terminal terminal = new Terminal();

        @Option(names = "--stats-file", paramLabel = "F",
                description = "default: the config's statsFile, /run/cmdemux/path-stats.json")
        Path statsFile;

        @Option(names = "--config", paramLabel = "F", description = "a path-record config file")
        Path configFile;

        @Option(names = "--json", description = "machine-readable output")
        boolean json;

        @Override
        public Integer call() throws Exception {
            Path f = statsFile != null ? statsFile : config(configFile).statsFile();
            if (!Files.isRegularFile(f)) {
                throw new EnvironmentException("no path-record stats at " + f
                        + ": is `cmdemux path serve` (or `serve`) running? it writes them every 2 s");
            }
            JsonNode s = PathView.JSON.readTree(Files.readString(f));
            if (json) {
                terminal.out().println(PathView.JSON.writeValueAsString(s));
            } else {
                terminal.out().print(PathView.statsText(s));
            }
            return ExitCode.OK;
        }
    }

    @Command(name = "serve", mixinStandardHelpOptions = true,
            description = {"Run the RDMA_NL_LS responder alone (the host namespace, CAP_NET_ADMIN),"
                    + " writing its stats every 2 s.",
                    "Where the kernel has no NETLINK_RDMA it says so once and keeps running"
                    + " (queries and stats still work).",
                    "The policy file is re-read when it changes."})
    static final class Serve implements Callable<Integer> {
        @Mixin
        Terminal terminal = new Terminal();

        @Option(names = "--config", paramLabel = "F", description = "a path-record config file (docs/PATHRECORD.md)")
        Path configFile;

        @Option(names = "--stats-file", paramLabel = "F", description = "default: the config's statsFile")
        Path statsFile;

        @Option(names = "--for", paramLabel = "SECONDS",
                description = "stop after this long (default: run until stopped)")
        Integer seconds;

        @Mixin
        RdmaOptions rdma = new RdmaOptions();

        @Override
        public Integer call() throws Exception {
            PathRecordConfig c = config(configFile);
            if (statsFile != null) {
                c = c.withStatsFile(statsFile);
            }
            Path stats = c.statsFile();
            TopologyWatcher watcher = null;
            NetnsExecutor exec = null;
            try (PathRecordService svc = PathRecordService.start(c, hostState(rdma, terminal.err()), null)) {
                Responder.State st = svc.responder().state();
                terminal.err().println("cmdemux: path responder " + st.name().toLowerCase() + ": "
                        + svc.responder().stateDetail());
                if (rdma.snapshot == null) {
                    try {
                        exec = new NetnsExecutor(2);
                        watcher = new TopologyWatcher(new NetnsDiscovery(), exec);
                        watcher.addListener(t -> svc.onHostState(hostStateFor(t, rdma)));
                        watcher.start();
                    } catch (IOException e) {
                        terminal.err().println("cmdemux: warning: no topology watcher (" + e.getMessage()
                                + "): namespaces are inferred from the start-up topology");
                    }
                }
                long end = seconds == null ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
                FileTime policyTime = mtime(c.policyFile());
                PathStatsFile.write(stats, svc);
                while (System.nanoTime() < end) {
                    Thread.sleep(Math.max(1, Math.min(2000, (end - System.nanoTime()) / 1_000_000)));
                    FileTime now = mtime(c.policyFile());
                    if (now != null && !now.equals(policyTime)) {
                        policyTime = now;
                        try {
                            svc.reloadPolicy();
                            terminal.err().println("cmdemux: reloaded " + c.policyFile() + " (policy generation "
                                    + svc.resolver().policy().generation() + ")");
                        } catch (IllegalArgumentException | IOException e) {
                            terminal.err().println("cmdemux: kept the old policy: " + e.getMessage());
                        }
                    }
                    PathStatsFile.write(stats, svc);
                }
                return ExitCode.OK;
            } finally {
                if (watcher != null) {
                    watcher.close();
                }
                if (exec != null) {
                    exec.close();
                }
            }
        }

        private static FileTime mtime(Path p) {
            try {
                return p == null ? null : Files.getLastModifiedTime(p);
            } catch (IOException e) {
                return null;
            }
        }

        private static HostState hostStateFor(TopologySnapshot t, RdmaOptions rdma) {
            SysfsLayout layout = SysfsLayout.live(rdma.sysfsRoot != null ? rdma.sysfsRoot : SysfsLayout.LIVE_ROOT);
            return new HostState(t, SysfsReader.read(layout, t).topology(), ListenerTable.empty());
        }
    }
}
