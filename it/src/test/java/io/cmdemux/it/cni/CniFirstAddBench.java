package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.testkit.Host;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The first CNI ADD after the daemon starts against the ones after it (issue 22): STARTS fresh daemons,
 * each taking ADDS ADDs of the chain (macvlan + host-local, then cmdemux-cni), and for each ADD the
 * cmdemux-cni step as the runtime sees it (exec to exit) and the daemon's own phases from its debug log.
 * Run by hand: mvn -pl cli,it -am verify -Dtest=CniFirstAddBench -Dsurefire.failIfNoSpecifiedTests=false
 */
class CniFirstAddBench {
    private static final int STARTS = Integer.getInteger("cni.starts", 5);
    private static final int ADDS = Integer.getInteger("cni.adds", 6);
    private static final Pattern PHASES = Pattern.compile(
            "ADD (s\\d+a\\d+) phases: arguments and namespace (\\d+) us, readiness (\\d+) us, registration (\\d+) us");
    private static final Pattern TOTAL = Pattern.compile("CNI ADD (s\\d+a\\d+) net1: exit 0 in (\\d+) ms");

    @Test
    void firstAddAfterAStartAgainstTheOnesAfterIt() throws Exception {
        System.setProperty("cni.daemonLog", "debug");
        StringBuilder t = new StringBuilder("| start | ADD | cmdemux-cni step | daemon total | arguments and namespace"
                + " | readiness | registration |\n|---:|---:|---:|---:|---:|---:|---:|\n");
        try (CniNode node = new CniNode("cfa")) {
            ObjectNode chain = CniRuntime.conflist("1.0.0", "first", node.macvlan(node.uplink, "10.76.0.0/24"),
                    node.cmdemux());
            for (int s = 0; s < STARTS; s++) {
                node.startDaemon("soft0=" + node.uplink + ":v1,v2");
                // the ADDs a kubelet sends come after the daemon says it serves, as here
                long until = System.currentTimeMillis() + 30_000;
                while (!node.daemonLog().contains("serving ") && System.currentTimeMillis() < until) {
                    Thread.sleep(20);
                }
                CniRuntime rt = node.runtime();
                List<Long> steps = new ArrayList<>();
                List<String> pods = new ArrayList<>();
                List<JsonNode> prevs = new ArrayList<>();
                for (int a = 0; a < ADDS; a++) {
                    String id = "s" + s + "a" + a;
                    String pod = node.pod(id);
                    pods.add(pod);
                    CniRuntime.Attachment at = new CniRuntime.Attachment(id, pod, "net1", "IgnoreUnknown=1");
                    CniRuntime.Invocation mv = rt.exec("macvlan", "ADD", at,
                            CniRuntime.derive(chain, chain.get("plugins").get(0), null));
                    assertThat(mv.exit()).as("%s", mv).isZero();
                    JsonNode prev = mv.json();
                    prevs.add(prev);
                    long t0 = System.nanoTime();
                    CniRuntime.Invocation cm = rt.exec("cmdemux-cni", "ADD", at,
                            CniRuntime.derive(chain, chain.get("plugins").get(1), prev));
                    steps.add(System.nanoTime() - t0);
                    assertThat(cm.exit()).as("%s", cm).isZero();
                }
                String log = node.daemonLog();
                node.stopDaemon();
                for (int a = 0; a < ADDS; a++) {
                    String id = "s" + s + "a" + a;
                    t.append(String.format("| %d | %d | %.1f ms | %s ms | %s |%n", s + 1, a + 1, steps.get(a) / 1e6,
                            find(TOTAL, log, id, 2), phases(log, id)));
                    rt.del(chain, new CniRuntime.Attachment(id, pods.get(a), "net1", "IgnoreUnknown=1"), prevs.get(a));
                    node.removePod(pods.get(a));
                }
            }
        }
        System.out.println("\n" + t + "\nload average after the run: " + Host.sh("cat", "/proc/loadavg").strip());
    }

    private static String phases(String log, String id) {
        Matcher m = PHASES.matcher(log);
        while (m.find()) {
            if (m.group(1).equals(id)) {
                return String.format("%.1f ms | %.1f ms | %.1f ms", Long.parseLong(m.group(2)) / 1e3,
                        Long.parseLong(m.group(3)) / 1e3, Long.parseLong(m.group(4)) / 1e3);
            }
        }
        return "? | ? | ?";
    }

    private static String find(Pattern p, String log, String id, int group) {
        Matcher m = p.matcher(log);
        while (m.find()) {
            if (m.group(1).equals(id)) {
                return m.group(group);
            }
        }
        return "?";
    }
}
