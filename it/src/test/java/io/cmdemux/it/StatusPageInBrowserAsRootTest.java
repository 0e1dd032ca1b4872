package io.cmdemux.it;

import static io.cmdemux.namespaces.testkit.Host.bash;
import static io.cmdemux.namespaces.testkit.Host.sh;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.namespaces.testkit.Netns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's status page in a real browser while the daemon handles real requests: the
 * scripts/demo scenario (a client namespace and a veth uplink carrying soft port rxe0, macvlan
 * pods, one of them named with quotes, angle brackets and unicode), `cmdemux serve`, `cmdemux
 * listen` in two pods and `cmdemux connect` from the client; then Debian's headless chromium
 * loads the page. What the page must show comes from the scenario (who listens where, which
 * request goes where), iproute2 and stat; the screenshots are kept in target/ as build
 * artifacts. Needs root and the Debian packages iproute2, nftables, graphviz and chromium.
 */
class StatusPageInBrowserAsRootTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ARTIFACTS = Path.of("target", "status-page");

    @TempDir
    Path tmp;

    private static long inode(String netns) {
        return Long.parseLong(sh("stat", "-L", "-c", "%i", "/run/netns/" + netns).trim());
    }

    private static int ifindex(String netns, String name) throws Exception {
        return JSON.readTree(sh("ip", "-n", netns, "-j", "link", "show", name)).get(0).get("ifindex").asInt();
    }

    @Test
    void thePageShowsTheDaemonsDecisionsAndALiveTopologyPicture() throws Exception {
        Host.requireRoot();
        Host.requireCommand("ip", "iproute2");
        Host.requireCommand("nft", "nftables");
        Host.requireCommand("dot", "graphviz");
        Host.requireCommand("chromium", "chromium");
        try (Netns ns = new Netns("sp")) {
            String p = ns.prefix();
            String up = ns.hostLink("up");
            String cli = ns.add("cli");
            String pod1 = ns.add("p1");
            String pod2 = ns.add("p2");
            String odd = ns.add("\"<i>éΩ&lt;b&gt;"); // "/" is the one character a name under /run/netns cannot hold
            bash("set -e\n"
                    + "ip link add " + up + " type veth peer name " + p + "upp\n"
                    + "ip link set " + p + "upp netns " + cli + "\n"
                    + "ip link set " + up + " up\n"
                    + "ip -n " + cli + " addr add 10.69.0.99/24 dev " + p + "upp\n"
                    + "ip -n " + cli + " link set " + p + "upp up\n"
                    + "add_pod() {\n"
                    + "  ip link add " + p + "m$1 link " + up + " type macvlan mode bridge\n"
                    + "  ip link set " + p + "m$1 netns \"$2\"\n"
                    + "  ip -n \"$2\" link set " + p + "m$1 name net1\n"
                    + "  ip -n \"$2\" addr add 10.69.0.$3/24 dev net1\n"
                    + "  ip -n \"$2\" link set net1 up\n"
                    + "}\n"
                    + "add_pod 1 '" + pod1 + "' 11\n"
                    + "add_pod 2 '" + pod2 + "' 12\n"
                    + "add_pod 9 '" + odd + "' 19\n");

            Path sock = tmp.resolve("cmdemux.sock");
            try (Cmdemux serve = Cmdemux.start(tmp, null, "serve", "--rdma-port", "rxe0=" + up, "--control-socket",
                    sock.toString(), "--metrics", "127.0.0.1:0")) {
                String base = serve.awaitStderr("status page on (http://127\\.0\\.0\\.1:\\d+)/", 60);
                try (Cmdemux l1 = Cmdemux.start(tmp, pod1, "listen", "--ip", "0.0.0.0", "--port", "7471");
                        Cmdemux l9 = Cmdemux.start(tmp, odd, "listen", "--ip", "0.0.0.0", "--port", "7471")) {
                    l1.awaitStderr("listening", 60);
                    l9.awaitStderr("listening", 60);
                    // deliver to pod1; REJ 28 (pod2 has no listener); REJ 8 (nobody listens on
                    // 9999); deliver to the odd pod
                    String[][] requests = {{"10.69.0.11:7471", "mra"}, {"10.69.0.12:7471", "rej"},
                            {"10.69.0.11:9999", "rej"}, {"10.69.0.19:7471", "mra"}};
                    try {
                        for (String[] r : requests) {
                            // generous: the first request meets a cold daemon on a shared machine;
                            // retransmissions are answered once
                            Cmdemux.Run c = Cmdemux.run(tmp, cli, "connect", "--dst", r[0], "--timeout",
                                    "15000", "--json");
                            assertThat(JSON.readTree(c.out().strip()).get("result").asText())
                                    .as("connect %s: %s", r[0], c.err()).isEqualTo(r[1]);
                        }
                        browse(base, pod1, pod2, odd);
                    } catch (AssertionError e) {
                        throw new AssertionError(e.getMessage() + "\n--- serve's stderr:\n" + serve.stderr(), e);
                    }
                }
            }
        }
    }

    private void browse(String base, String pod1, String pod2, String odd) throws Exception {
        try (Chromium chromium = Chromium.start(tmp.resolve("profile"), tmp.resolve("chromium.log"));
                Chromium.Tab tab = chromium.open(base + "/")) {
            JsonNode rows = tab.evalSteady("JSON.stringify(Array.from(document.querySelectorAll("
                    + "'#decisions-table tbody tr')).map(tr => ({"
                    + "seq: tr.dataset.seq, outcome: tr.querySelector('.outcome').textContent,"
                    + " ns: tr.querySelector('.namespace').textContent,"
                    + "reason: tr.querySelector('.reason').textContent,"
                    + " trace: tr.querySelector('a.trace').getAttribute('href')})))");
            List<JsonNode> decisions = new ArrayList<>();
            JSON.readTree(rows.asText()).forEach(decisions::add);
            assertThat(decisions).as("one row per request, newest first").extracting(r -> r.get("seq").asText())
                    .containsExactly("4", "3", "2", "1");
            JsonNode first = decisions.get(3);
            assertThat(first.get("outcome").asText()).isEqualTo("deliver");
            assertThat(first.get("ns").asText()).isEqualTo(pod1 + " (" + inode(pod1) + ")");
            assertThat(decisions.get(2).get("outcome").asText()).isEqualTo("reject");
            assertThat(decisions.get(2).get("ns").asText()).isEqualTo(pod2 + " (" + inode(pod2) + ")");
            assertThat(decisions.get(2).get("reason").asText()).startsWith("REJ 28");
            assertThat(decisions.get(1).get("reason").asText()).startsWith("REJ 8");
            assertThat(decisions.get(0).get("outcome").asText()).isEqualTo("deliver");
            assertThat(decisions.get(0).get("ns").asText()).as("the odd name, as text")
                    .isEqualTo(odd + " (" + inode(odd) + ")");

            String pod1Net1 = "link_" + inode(pod1) + "_" + ifindex(pod1, "net1");
            JsonNode svg = tab.evalSteady("JSON.stringify({svg: !!document.querySelector('#topology svg'),"
                    + " nodes: document.querySelectorAll('#topology svg g.node').length,"
                    + " ids: ['ns_" + inode(pod1) + "', 'ns_" + inode(pod2) + "', 'ns_" + inode(odd) + "', '" + pod1Net1
                    + "', 'port_rxe0_1']"
                    + "   .filter(id => document.getElementById(id) && document.getElementById(id).closest('svg')),"
                    + " oddText: Array.from(document.querySelectorAll('#topology svg text')).map(t => t.textContent)"
                    + ".filter(t => t.startsWith('netns ')),"
                    + " injected: document.querySelectorAll('i, script').length + document.querySelectorAll('b').length"
                    + "   - document.querySelectorAll('p.meta b').length,"
                    + " consumers: Array.from(document.querySelectorAll('#consumers-table tbody tr'))"
                    + ".map(tr => Array.from(tr.cells).map(c => c.textContent)),"
                    + " counters: document.querySelectorAll('#counters-table tbody tr').length})");
            JsonNode s = JSON.readTree(svg.asText());
            assertThat(s.get("svg").asBoolean()).as("an <svg> in the DOM").isTrue();
            assertThat(s.get("nodes").asInt()).isGreaterThan(5);
            assertThat(s.get("ids")).hasSize(5);
            List<String> nsTexts = new ArrayList<>();
            s.get("oddText").forEach(t -> nsTexts.add(t.asText()));
            assertThat(nsTexts).contains("netns " + odd, "netns " + pod1);
            assertThat(s.get("injected").asInt()).as("the odd name's <i> and &lt;b&gt; stayed text").isZero();
            List<List<String>> consumers = new ArrayList<>();
            s.get("consumers").forEach(r -> {
                List<String> cells = new ArrayList<>();
                r.forEach(c -> cells.add(c.asText()));
                consumers.add(cells);
            });
            assertThat(consumers).anySatisfy(r -> assertThat(r.subList(0, 4))
                    .containsExactly(odd, Long.toString(inode(odd)), "1", "1"));
            assertThat(consumers).anySatisfy(r -> assertThat(r.subList(0, 4))
                    .containsExactly(pod1, Long.toString(inode(pod1)), "1", "1"));
            assertThat(s.get("counters").asInt()).isGreaterThan(3);
            tab.screenshot(ARTIFACTS.resolve("status-page.png"));

            // The first decision's trace, as the page links it.
            tab.navigate(base + first.get("trace").asText());
            JsonNode walk = tab.evalSteady("JSON.stringify({walk: document.querySelectorAll('g.edge.walk').length,"
                    + " first: !!document.getElementById('walk_1'),"
                    + " net1: document.getElementById('" + pod1Net1 + "').getAttribute('class'),"
                    + " firstStep: document.querySelector('#walk_1 text').textContent})");
            JsonNode w = JSON.readTree(walk.asText());
            assertThat(w.get("walk").asInt()).isGreaterThanOrEqualTo(4);
            assertThat(w.get("first").asBoolean()).isTrue();
            assertThat(w.get("net1").asText()).contains("walk");
            assertThat(w.get("firstStep").asText()).isEqualTo("1 ingress-port");
            tab.screenshot(ARTIFACTS.resolve("decision-1.png"));
        }
        byte[] png = Files.readAllBytes(ARTIFACTS.resolve("status-page.png"));
        assertThat(png).startsWith(0x89, 'P', 'N', 'G');
    }
}
