package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.testkit.Host;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ADD latency cmdemux-cni adds to a macvlan + host-local attachment, as a runtime sees it
 * (a process per plugin, wall time from exec to exit), with the daemon running and without it.
 * Not part of the default run (surefire picks up *Test only); run it with
 * {@code mvn -B -pl cli,it -am verify -Dtest=CniLatencyBench -Dsurefire.failIfNoSpecifiedTests=false}.
 * Each round uses a fresh pod namespace; rounds of the baseline and of the chain alternate, so that
 * the machine's load drifts over both alike. Results go to stdout as a table for docs/PERFORMANCE.md.
 */
class CniLatencyBench {
    private static final int WARMUP = 5;
    private static final int ROUNDS = Integer.getInteger("cni.rounds", 40);
    private static final int FALLBACK_ROUNDS = Integer.getInteger("cni.fallbackRounds", 10);

    private record Round(long macvlanAloneNs, long chainNs, long cmdemuxNs) {}

    @Test
    void addLatencyWithAndWithoutTheDaemon() throws Exception {
        try (CniNode node = new CniNode("cnl")) {
            String port = "soft0=" + node.uplink + ":v1,v2";
            node.startDaemon(port);
            List<Round> daemon = rounds(node, node.cmdemux(), WARMUP, ROUNDS, "d", "registered with the daemon");
            node.stopDaemon();
            ObjectNode fallbackConf = node.cmdemux();
            fallbackConf.putObject("rdma").putArray("softPorts").add(port);
            List<Round> fallback = rounds(node, fallbackConf, 1, FALLBACK_ROUNDS, "f", "the daemon is down");
            List<Long> inDaemon = new ArrayList<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("CNI ADD db(\\d+) net1: exit 0 in (\\d+) ms")
                    .matcher(node.daemonLog());
            while (m.find()) {
                if (Integer.parseInt(m.group(1)) >= WARMUP) {
                    inDaemon.add(Long.parseLong(m.group(2)) * 1_000_000);
                }
            }
            String load = Host.sh("cat", "/proc/loadavg").strip();
            if (Boolean.getBoolean("cni.printDaemonLog")) {
                System.out.println(node.daemonLog());
            }
            StringBuilder t = new StringBuilder();
            t.append("| path | rounds | macvlan + host-local alone, p50 | chain ADD, p50 | cmdemux-cni step,"
                    + " p50 / p90 | added (chain − alone), p50 |\n");
            t.append("|---|---:|---:|---:|---:|---:|\n");
            row(t, "daemon running (thin client → daemon)", daemon);
            row(t, "daemon down (JVM fallback)", fallback);
            System.out.println("\n" + t + "\nthe daemon's own time per ADD (CNI request in, reply out), p50 / p90: "
                    + p(inDaemon, 50) / 1e6 + " / " + p(inDaemon, 90) / 1e6 + " ms over " + inDaemon.size()
                    + " ADDs\nload average after the run: " + load + "\n");
        }
    }

    private static List<Round> rounds(CniNode node, ObjectNode ours, int warmup, int rounds, String tag,
            String expectInLog) throws Exception {
        CniRuntime rt = node.runtime();
        List<Round> out = new ArrayList<>();
        // Two networks on one uplink, with IPAM ranges of their own: the same IP in two pods is
        // an error cmdemux-cni reports.
        ObjectNode alone = CniRuntime.conflist("1.0.0", "bench-alone", node.macvlan(node.uplink, "10.78.0.0/24"));
        ObjectNode chain = CniRuntime.conflist("1.0.0", "bench", node.macvlan(node.uplink, "10.79.0.0/24"), ours);
        for (int i = 0; i < warmup + rounds; i++) {
            String podA = node.pod(tag + "a" + i);
            String podB = node.pod(tag + "b" + i);
            CniRuntime.Attachment a = new CniRuntime.Attachment("a" + i, podA, "net1",
                    "IgnoreUnknown=1;K8S_POD_NAME=a" + i);
            CniRuntime.Attachment b = new CniRuntime.Attachment(tag + "b" + i, podB, "net1",
                    "IgnoreUnknown=1;K8S_POD_NAME=b" + i);

            long t0 = System.nanoTime();
            CniRuntime.AddResult r0 = rt.add(alone, a);
            long t1 = System.nanoTime();
            CniRuntime.Invocation mv = rt.exec("macvlan", "ADD", b,
                    CniRuntime.derive(chain, chain.get("plugins").get(0), null));
            long t2 = System.nanoTime();
            JsonNode prev = mv.json();
            CniRuntime.Invocation cm = rt.exec("cmdemux-cni", "ADD", b,
                    CniRuntime.derive(chain, chain.get("plugins").get(1), prev));
            long t3 = System.nanoTime();

            assertThat(r0.ok()).as("%s", r0.invocations()).isTrue();
            assertThat(mv.exit()).as("%s", mv).isZero();
            assertThat(cm.exit()).as("%s", cm).isZero();
            assertThat(cm.stderr()).contains(expectInLog);
            if (i >= warmup) {
                out.add(new Round(t1 - t0, t3 - t1, t3 - t2));
            }
            rt.del(alone, a, r0.result());
            rt.del(chain, b, prev);
            node.removePod(podA);
            node.removePod(podB);
        }
        return out;
    }

    private static void row(StringBuilder t, String name, List<Round> rounds) {
        long alone = p(rounds.stream().map(Round::macvlanAloneNs).toList(), 50);
        long chain = p(rounds.stream().map(Round::chainNs).toList(), 50);
        t.append(String.format("| %s | %d | %.1f ms | %.1f ms | %.1f / %.1f ms | %.1f ms |%n", name, rounds.size(),
                alone / 1e6, chain / 1e6, p(rounds.stream().map(Round::cmdemuxNs).toList(), 50) / 1e6,
                p(rounds.stream().map(Round::cmdemuxNs).toList(), 90) / 1e6, (chain - alone) / 1e6));
    }

    private static long p(List<Long> xs, int pct) {
        List<Long> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(Math.min(s.size() - 1, (int) Math.ceil(pct / 100.0 * s.size()) - 1));
    }
}
