package io.cmdemux.bench;

import io.cmdemux.namespaces.LiveDumper;
import io.cmdemux.namespaces.NamespaceDump;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.TopologyWatcher;
import io.cmdemux.netdev.RtnlClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Macro benchmark on the live host (scripts/bench-topology sets the host up): the cold full
 * topology build, and the watcher's notification-to-generation latency. A JMH harness does not fit
 * here: the subject is the kernel round trips, not a hot loop.
 *
 * <p>Usage: TopologyBench BUILD_RUNS CHANGE_RUNS POD_PREFIX [WARMUP_CHANGES]. The watcher is a daemon's
 * long-lived part, so WARMUP_CHANGES untimed changes (a multiple of 100 keeps the pods' addresses as
 * they were) come first and let the JIT compile the notification path; 0 measures it cold.
 */
public final class TopologyBench {
    public static void main(String[] args) throws Exception {
        int buildRuns = Integer.parseInt(args[0]);
        int changes = Integer.parseInt(args[1]);
        String podPrefix = args[2];
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        double[] builds = new double[buildRuns];
        int links = 0;
        int namespaces = 0;
        int routes = 0;
        for (int i = 0; i < buildRuns; i++) {
            long t0 = System.nanoTime();
            try (NetnsExecutor exec = new NetnsExecutor(2); RtnlClient host = RtnlClient.open()) {
                NetnsDiscovery.Scan scan = new NetnsDiscovery().scan();
                List<NamespaceDump> dumps = new LiveDumper(exec, host).dumpAll(scan);
                TopologySnapshot s = TopologySnapshot.build(1, scan.self(), dumps);
                links = s.linkCount();
                namespaces = s.namespaces().size();
                routes = s.namespaces().stream().mapToInt(n -> n.routes().size()).sum();
            }
            builds[i] = (System.nanoTime() - t0) / 1e6;
        }
        System.out.printf("build: namespaces=%d links=%d routes=%d%n", namespaces, links, routes);
        System.out.printf("build_first_ms=%.1f%n", builds[0]);
        double[] rest = Arrays.copyOfRange(builds, Math.min(1, buildRuns - 1), buildRuns);
        Arrays.sort(rest);
        System.out.printf("build_median_ms=%.1f build_min_ms=%.1f (runs after the first: %d)%n", rest[rest.length / 2],
                rest[0], rest.length);

        try (NetnsExecutor exec = new NetnsExecutor(2); TopologyWatcher w = new TopologyWatcher(new NetnsDiscovery(),
                exec)) {
            long t0 = System.nanoTime();
            w.start();
            System.out.printf("watcher_start_ms=%.1f%n", (System.nanoTime() - t0) / 1e6);
            List<Long> internal = new ArrayList<>();
            List<Long> endToEnd = new ArrayList<>();
            for (int i = 0; i < warmup + changes; i++) {
                int pods = Math.min(50, namespaces - 1);
                String pod = podPrefix + (i % pods);
                String op = (i / pods) % 2 == 0 ? "add" : "del";
                long gen = w.current().generation();
                long s0 = System.nanoTime();
                Process p = new ProcessBuilder("ip", "-n", pod, "addr", op,
                        "2001:db8:ffff::" + Integer.toHexString(i % pods + 1) + "/128", "dev", "lo")
                        .redirectErrorStream(true).start();
                if (p.waitFor() != 0) {
                    throw new IllegalStateException("ip failed: " + new String(p.getInputStream().readAllBytes()));
                }
                TopologySnapshot next = w.awaitNewer(gen, 5000);
                if (next == null) {
                    throw new IllegalStateException("no new generation after change " + i);
                }
                if (i >= warmup) {
                    endToEnd.add(System.nanoTime() - s0);
                    internal.add(w.stats().lastLatencyNanos());
                }
            }
            print("event_to_generation_us", internal);
            print("ip_command_to_generation_us", endToEnd);
        }
    }

    private static void print(String what, List<Long> nanos) {
        long[] v = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        if (v.length == 0) {
            return;
        }
        System.out.printf("%s: n=%d median=%.1f p99=%.1f max=%.1f%n", what, v.length,
                v[v.length / 2] / 1e3, v[Math.min(v.length - 1, (int) (v.length * 0.99))] / 1e3, v[v.length - 1] / 1e3);
    }
}
