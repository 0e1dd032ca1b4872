package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.namespaces.testkit.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * `serve --nfd-features-dir` against the live host: the labels in features.d/cmdemux follow what iproute2 says
 * of the soft port's netdev (up with carrier: ready; its peer down: down), the GID types `cmdemux gids` shows,
 * and the problem count of `cmdemux gids check`, which two pods holding one IP raise; when the daemon stops,
 * the file is gone. The file is read as NFD reads it: `#` lines are comments, the rest `name[=value]`.
 */
class NodeFeaturesAsRootTest {
    private static final String P = "feature.node.kubernetes.io/cmdemux-";

    private static Map<String, String> read(Path file) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            out.put(eq < 0 ? line : line.substring(0, eq), eq < 0 ? "true" : line.substring(eq + 1));
        }
        return out;
    }

    private static Map<String, String> await(Path file, Predicate<Map<String, String>> ok,
            String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Map<String, String> last = null;
        while (System.nanoTime() < deadline) {
            if (Files.exists(file)) {
                last = read(file);
                if (ok.test(last)) {
                    return last;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("features.d/cmdemux never showed " + what + "; last: " + last);
    }

    private static int cliProblems(String rdmaPort) throws IOException {
        Host.Result r = null;
        for (int i = 0; i < 5 && (r == null || r.exit() == 3); i++) {
            r = CniNode.cli("gids", "check", "--json", "--rdma-port", rdmaPort);
        }
        assertThat(r.exit()).as(r.stderr()).isIn(0, 1);
        return CniRuntime.JSON.readTree(r.stdout()).get("problems").size();
    }

    @Test
    void theLabelsFollowTheLiveHostAndGoWithTheDaemon() throws Exception {
        try (CniNode node = new CniNode("nfd")) {
            String port = "soft0=" + node.uplink + ":v1,v2";
            Path dir = node.dir.resolve("features.d");
            Path file = dir.resolve("cmdemux");
            node.startDaemon(port, "--nfd-features-dir", dir.toString());

            String link = Host.sh("ip", "-j", "link", "show", node.uplink);
            assertThat(link).as("iproute2: up with carrier").contains("\"UP\"").contains("\"LOWER_UP\"");
            Map<String, String> l = await(file, m -> "ready".equals(m.get(P + "soft0-1.rdma-cm")), "soft0 ready");
            assertThat(l).containsEntry(P + "ready", "true").containsEntry(P + "netns-mode", "shared")
                    .containsEntry(P + "soft0-1.kind", "soft").containsEntry(P + "soft0-1.link-layer", "ethernet");
            Set<String> types = new TreeSet<>();
            for (JsonNode e : CniRuntime.JSON.readTree(CniNode.cli("gids", "--json", "--rdma-port", port).stdout())) {
                types.add(e.get("type").asText().toLowerCase().replace(' ', '-'));
            }
            assertThat(l.get(P + "soft0-1.gid-types")).isEqualTo(String.join(".", types));

            // one IP in two pods on the port: gids check counts it, and so does the label
            String prefix = node.ns.prefix();
            for (int i = 1; i <= 2; i++) {
                String pod = node.pod("p" + i).substring("/run/netns/".length());
                Host.bash("set -e\nip link add " + prefix + "m" + i + " link " + node.uplink
                        + " type macvlan mode bridge\n"
                        + "ip link set " + prefix + "m" + i + " netns " + pod + "\n"
                        + "ip -n " + pod + " addr add 10.78.0.9/24 dev " + prefix + "m" + i + "\n"
                        + "ip -n " + pod + " link set " + prefix + "m" + i + " up\n");
            }
            int cli = cliProblems(port);
            assertThat(cli).as("gids check sees the duplicate").isPositive();
            await(file, m -> Integer.toString(cli).equals(m.get(P + "gid-problems")), "gid-problems=" + cli);

            // the uplink loses its carrier: the port is down, and the file says so; no draft is left behind
            Host.sh("ip", "link", "set", node.ns.name("upp"), "down");
            assertThat(Host.sh("ip", "-j", "link", "show", node.uplink)).doesNotContain("\"LOWER_UP\"");
            await(file, m -> "down".equals(m.get(P + "soft0-1.rdma-cm")), "soft0 down");
            try (var files = Files.list(dir)) {
                assertThat(files.map(f -> f.getFileName().toString())).containsExactly("cmdemux");
            }

            node.stopDaemon();
            assertThat(file).as("removed at exit").doesNotExist();
        }
    }
}
