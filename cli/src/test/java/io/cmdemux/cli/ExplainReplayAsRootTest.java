package io.cmdemux.cli;

import static io.cmdemux.namespaces.testkit.Host.bash;
import static io.cmdemux.namespaces.testkit.Host.sh;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.namespaces.testkit.Netns;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.PcapWriter;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * explain and replay on a live host built by the test: a veth uplink carrying a soft port, two
 * macvlan pods, and a veth-only pod. Expectations come from the setup (which pod has which
 * address and MAC), the kernel's rules, and iproute2. Needs root.
 */
class ExplainReplayAsRootTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Netns ns;
    private static String up;
    private static String pod1;
    private static String pod2;
    private static String pod3;
    private static String port;

    @BeforeAll
    static void build() {
        ns = new Netns("te");
        up = ns.hostLink("up");
        pod1 = ns.add("p1");
        pod2 = ns.add("p2");
        pod3 = ns.add("p3");
        String p = ns.prefix();
        bash("set -e\n"
                + "ip link add " + up + " type veth peer name " + p + "upp\n"
                + "ip link set " + up + " up; ip link set " + p + "upp up\n"
                + "ip addr add 10.66.0.1/24 dev " + up + "\n"
                + "for i in 1 2; do\n"
                + "  ip link add " + p + "m$i link " + up + " type macvlan mode bridge\n"
                + "  ip link set " + p + "m$i netns " + p + "p$i\n"
                + "  ip -n " + p + "p$i link set " + p + "m$i name net1\n"
                + "  ip -n " + p + "p$i link set net1 address 02:66:00:00:00:0$i\n"
                + "  ip -n " + p + "p$i addr add 10.66.0.1$i/24 dev net1\n"
                + "  ip -n " + p + "p$i link set net1 up\n"
                + "done\n"
                // the same address in both macvlan pods, pod 2 first
                + "ip -n " + p + "p2 addr add 10.66.0.50/24 dev net1\n"
                + "ip -n " + p + "p1 addr add 10.66.0.50/24 dev net1\n"
                // a veth-only pod: its interface is no upper of the port netdev, so it gets no GIDs
                + "ip link add " + p + "v3 type veth peer name " + p + "v3p\n"
                + "ip link set " + p + "v3p netns " + p + "p3\n"
                + "ip -n " + p + "p3 addr add 10.66.1.13/24 dev " + p + "v3p\n"
                + "ip -n " + p + "p3 link set " + p + "v3p up\n");
        ns.hostLink("v3");
        port = "rxe0=" + up;
    }

    @AfterAll
    static void cleanUp() {
        if (ns != null) {
            ns.close();
        }
    }

    private static JsonNode explain(String dst, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("explain", "--rdma-port", port, "--dst", dst, "--src",
                "10.66.0.99:40000", "--json"));
        args.addAll(List.of(extra));
        Cli.Result r = Cli.run(args.toArray(String[]::new));
        JsonNode j = JSON.readTree(r.out());
        assertThat(r.exit()).as("exit code follows the kernel outcome; stderr: %s", r.err())
                .isEqualTo(j.get("outcome").asText().equals("deliver") ? 0 : 1);
        return j;
    }

    @Test
    void aListenerInThePodThatOwnsTheAddressGetsTheRequest() throws Exception {
        JsonNode j = explain("10.66.0.11:7471", "--listener", pod1 + ":0.0.0.0:7471");
        assertThat(j.get("outcome").asText()).isEqualTo("deliver");
        assertThat(j.at("/namespace/names/0").asText()).isEqualTo(pod1);
        assertThat(j.at("/namespace/inode").asLong())
                .isEqualTo(Long.parseLong(sh("stat", "-L", "-c", "%i", "/run/netns/" + pod1).trim()));
        assertThat(j.at("/netdev/name").asText()).isEqualTo("net1");
        assertThat(j.at("/listener/port").asInt()).isEqualTo(7471);
        assertThat(j.get("agree").asBoolean()).isTrue();
        assertThat(j.get("netstack").get("outcome").asText()).isEqualTo("deliver");
        List<String> steps = new ArrayList<>();
        j.get("trace").forEach(s -> steps.add(s.get("step").asText()));
        assertThat(steps).containsSubsequence("gid-match", "ib-cm-listen", "net-dev", "validate-net-dev",
                "netns", "listener");
    }

    @Test
    void aListenerOnlyInAnotherPodGivesRej28AndNoneAnywhereGivesRej8() throws Exception {
        JsonNode elsewhere = explain("10.66.0.11:7471", "--listener", pod2 + ":0.0.0.0:7471");
        assertThat(elsewhere.get("outcome").asText()).isEqualTo("reject");
        assertThat(elsewhere.get("rejectReason").asInt()).isEqualTo(28);
        assertThat(elsewhere.at("/namespace/names/0").asText()).isEqualTo(pod1);
        JsonNode nobody = explain("10.66.0.11:7471");
        assertThat(nobody.get("rejectReason").asInt()).isEqualTo(8);
    }

    @Test
    void aVethOnlyPodHasNoGidSoItsRequestsAreDroppedSilently() throws Exception {
        JsonNode j = explain("10.66.1.13:7471", "--listener", pod3 + ":0.0.0.0:7471");
        assertThat(j.get("outcome").asText()).isEqualTo("drop");
        assertThat(j.get("rejectReason").isNull()).isTrue();
        assertThat(j.get("dropReason").asText()).contains("no GID entry");
    }

    @Test
    void theSameIpInTwoPodsMakesTheModesDisagreeAndTheKernelTakesTheLowestGidIndex() throws Exception {
        Cli.Result g = Cli.run("gids", "--rdma-port", port, "--json");
        int lowest = Integer.MAX_VALUE;
        String lowestNs = null;
        for (JsonNode e : JSON.readTree(g.out())) {
            if (e.get("gid").asText().equals("::ffff:10.66.0.50") && e.get("index").asInt() < lowest) {
                lowest = e.get("index").asInt();
                lowestNs = e.get("namespaceNames").get(0).asText();
            }
        }
        assertThat(lowestNs).as("gids lists 10.66.0.50").isNotNull();
        String other = lowestNs.equals(pod1) ? pod2 : pod1;
        String otherMac = other.equals(pod1) ? "02:66:00:00:00:01" : "02:66:00:00:00:02";
        JsonNode j = explain("10.66.0.50:7471", "--listener", pod1 + ":0.0.0.0:7471", "--listener",
                pod2 + ":0.0.0.0:7471", "--dmac", otherMac);
        assertThat(j.at("/namespace/names/0").asText()).isEqualTo(lowestNs);
        assertThat(j.at("/netstack/namespace/names/0").asText()).isEqualTo(other);
        assertThat(j.get("agree").asBoolean()).isFalse();
        Cli.Result text = Cli.run("explain", "--rdma-port", port, "--dst", "10.66.0.50:7471", "--src",
                "10.66.0.99:40000",
                "--listener", pod1 + ":0.0.0.0:7471", "--listener", pod2 + ":0.0.0.0:7471", "--dmac", otherMac);
        assertThat(text.out()).contains("DISAGREE").contains("same IP");
    }

    @Test
    void replayGivesOneDecisionPerRequestInTheCapture(@TempDir Path tmp) throws Exception {
        Path pcap = tmp.resolve("reqs.pcap");
        String[] dsts = {"10.66.0.11", "10.66.0.12", "10.66.1.13"};
        HwAddr client = HwAddr.parse("02:66:00:00:00:99");
        try (OutputStream out = Files.newOutputStream(pcap); PcapWriter w = new PcapWriter(out,
                PcapWriter.LINKTYPE_ETHERNET)) {
            for (int i = 0; i < dsts.length; i++) {
                var src = InetAddresses.parse("10.66.0.99");
                var dst = InetAddresses.parse(dsts[i]);
                var req = RdmaCmRequests.req(0x1000 + i, 0x0266000000000099L, 0x11, 0x100, PortSpace.TCP, src,
                        40000 + i, dst, 7471, null);
                byte[] f = RoceFrameBuilder.cmFrame(new L2Header(HwAddr.parse("02:66:00:00:00:0" + (i + 1)),
                        client, null), L3Header.of(Gid.ofIp(src), Gid.ofIp(dst)), 0xc000, 0xffff, 0,
                        Mad.of(req, 0x77 + i));
                w.write(1_000_000L * (i + 1), f);
            }
        }
        Cli.Result r = Cli.run("replay", pcap.toString(), "--rdma-port", port, "--listener", pod1 + ":0.0.0.0:7471",
                "--listener", pod2 + ":10.66.0.12:7471", "--json", "--mode", "kernel");
        assertThat(r.exit()).as(r.err()).isZero();
        List<JsonNode> lines = new ArrayList<>();
        for (String l : r.out().split("\n")) {
            lines.add(JSON.readTree(l));
        }
        assertThat(lines).hasSize(3);
        assertThat(lines).extracting(l -> l.get("frame").asInt()).containsExactly(1, 2, 3);
        assertThat(lines).extracting(l -> l.get("localCommId").asText())
                .containsExactly("0x00001000", "0x00001001", "0x00001002");
        assertThat(lines).extracting(l -> l.get("outcome").asText()).containsExactly("deliver", "deliver", "drop");
        assertThat(lines.get(0).at("/namespace/names/0").asText()).isEqualTo(pod1);
        assertThat(lines.get(1).at("/namespace/names/0").asText()).isEqualTo(pod2);
    }
}
