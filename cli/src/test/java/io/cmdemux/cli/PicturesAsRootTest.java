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
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.namespaces.testkit.Netns;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.PcapWriter;
import io.cmdemux.render.picture.SvgDoc;
import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/**
 * topology, explain and replay as pictures of a live host the test builds: a veth uplink carrying
 * a soft RDMA port, two macvlan pods (one address in both), a veth-only pod, a bridge with a port,
 * and a namespace whose name holds quotes, angle brackets and unicode. What each picture must
 * hold comes from iproute2 (`ip -j link`, `stat` for inodes), the setup, and the kernel's order of
 * steps; Graphviz (Debian package graphviz) renders. Needs root.
 */
class PicturesAsRootTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> KERNEL_ROCE_DELIVER = List.of("ingress-port", "gid-match", "resolve-requester",
            "ib-cm-listen", "path-route", "cma-header", "net-dev",
            "validate-net-dev", "netns", "listener", "qp-type", "acquire-dev");
    private static Netns ns;
    private static String up;
    private static String pod1;
    private static String pod2;
    private static String pod3;
    private static String odd;
    private static String bridge;
    private static String bport;
    private static String port;

    @BeforeAll
    static void build() {
        Host.requireCommand("dot", "graphviz");
        ns = new Netns("tp");
        up = ns.hostLink("up");
        bridge = ns.hostLink("br");
        bport = ns.hostLink("b0");
        pod1 = ns.add("p1");
        pod2 = ns.add("p2");
        pod3 = ns.add("p3");
        odd = ns.add("\"<i>é名");
        String p = ns.prefix();
        bash("set -e\n"
                + "ip link add " + up + " type veth peer name " + p + "upp\n"
                + "ip link set " + up + " up; ip link set " + p + "upp up\n"
                + "for i in 1 2; do\n"
                + "  ip link add " + p + "m$i link " + up + " type macvlan mode bridge\n"
                + "  ip link set " + p + "m$i netns " + p + "p$i\n"
                + "  ip -n " + p + "p$i link set " + p + "m$i name net1\n"
                + "  ip -n " + p + "p$i link set net1 address 02:67:00:00:00:0$i\n"
                + "  ip -n " + p + "p$i addr add 10.67.0.1$i/24 dev net1\n"
                + "  ip -n " + p + "p$i addr add 10.67.0.50/24 dev net1\n"
                + "  ip -n " + p + "p$i link set net1 up\n"
                + "done\n"
                + "ip link add " + p + "v3 type veth peer name " + p + "v3p\n"
                + "ip link set " + p + "v3p netns " + p + "p3\n"
                + "ip -n " + p + "p3 addr add 10.67.1.13/24 dev " + p + "v3p\n"
                + "ip -n " + p + "p3 link set " + p + "v3p up\n"
                + "ip link add " + p + "m9 link " + up + " type macvlan mode bridge\n"
                + "ip link set " + p + "m9 netns '" + odd + "'\n"
                + "ip -n '" + odd + "' addr add 10.67.0.19/24 dev " + p + "m9\n"
                + "ip -n '" + odd + "' link set " + p + "m9 up\n"
                + "ip link add " + bridge + " type bridge\n"
                + "ip link add " + bport + " type veth peer name " + p + "b0p\n"
                + "ip link set " + bport + " master " + bridge + "\n");
        ns.hostLink("v3");
        port = "rxe0=" + up;
    }

    @AfterAll
    static void cleanUp() {
        if (ns != null) {
            ns.close();
        }
    }

    private static long inode(String netns) {
        return Long.parseLong(sh("stat", "-L", "-c", "%i", netns == null ? "/proc/self/ns/net" : "/run/netns/"
                + netns).trim());
    }

    /** ifindex → name of every link in a namespace, as iproute2 reports them. */
    private static Map<Integer, String> links(String netns) throws Exception {
        JsonNode j = JSON.readTree(netns == null ? sh("ip", "-j", "link", "show")
                : sh("ip", "-n", netns, "-j", "link", "show"));
        Map<Integer, String> out = new java.util.LinkedHashMap<>();
        j.forEach(l -> out.put(l.get("ifindex").asInt(), l.get("ifname").asText()));
        return out;
    }

    private static int ifindex(String netns, String name) throws Exception {
        return links(netns).entrySet().stream().filter(e -> e.getValue().equals(name)).findFirst()
                .orElseThrow().getKey();
    }

    private static Cli.Result ok(String... args) {
        Cli.Result r = Cli.run(args);
        assertThat(r.exit()).as("cmdemux %s: %s", String.join(" ", args), r.err()).isIn(0, 1);
        return r;
    }

    @Test
    void theDotOutputParsesWithGraphviz(@TempDir Path tmp) throws Exception {
        Path dot = tmp.resolve("host.dot");
        Files.writeString(dot, ok("topology", "--rdma-port", port, "--format", "dot").out(), StandardCharsets.UTF_8);
        Host.Result r = Host.run("dot", "-Tsvg", dot.toString(), "-o", tmp.resolve("host.svg").toString());
        assertThat(r.exit()).as(r.stderr()).isZero();
    }

    @Test
    void theSvgHasANodeForEveryLinkAndNamespaceTheTestBuilt() throws Exception {
        SvgDoc svg = SvgDoc.parse(ok("topology", "--rdma-port", port, "--format", "svg").out());
        for (String n : List.of(pod1, pod2, pod3, odd)) {
            long inode = inode(n);
            Element nsNode = svg.byId("ns_" + inode);
            assertThat(nsNode).as("namespace %s", n).isNotNull();
            assertThat(SvgDoc.texts(nsNode)).containsExactly("netns " + n);
            for (Map.Entry<Integer, String> l : links(n).entrySet()) {
                Element node = svg.byId("link_" + inode + "_" + l.getKey());
                assertThat(node).as("%s in %s", l.getValue(), n).isNotNull();
                assertThat(node.getAttribute("class")).startsWith("node link");
                assertThat(SvgDoc.texts(node).get(0)).startsWith(l.getValue() + " #" + l.getKey());
            }
        }
        long host = inode(null);
        assertThat(svg.byId("ns_" + host)).isNotNull();
        for (String l : List.of(up, bridge, bport)) {
            assertThat(svg.byId("link_" + host + "_" + ifindex(null, l))).as(l).isNotNull();
        }
        Element pod1Net1 = svg.byId("link_" + inode(pod1) + "_" + ifindex(pod1, "net1"));
        assertThat(SvgDoc.texts(pod1Net1)).contains("macvlan bridge", "10.67.0.11/24", "10.67.0.50/24");
        assertThat(svg.byId("port_rxe0_1")).isNotNull();
    }

    @Test
    void edgesFollowIpLinkParentsAndMastersAcrossNamespaces() throws Exception {
        String dot = ok("topology", "--rdma-port", port, "--format", "dot").out();
        long host = inode(null);
        String upNode = "link_" + host + "_" + ifindex(null, up);
        for (String pod : List.of(pod1, pod2)) {
            String net1 = "link_" + inode(pod) + "_" + ifindex(pod, "net1");
            assertThat(dot).contains("  " + upNode + " -> " + net1 + " [id=")
                    .containsPattern(Pattern.quote(upNode + " -> " + net1)
                            + " \\[id=\"e\\d+\", class=\"parent cross-netns\"");
            assertThat(dot).containsPattern("port_rxe0_1 -> " + net1
                    + " \\[id=\"e\\d+\", class=\"gid\", label=\"gid [0-9,]+\"");
        }
        JsonNode b0 = JSON.readTree(sh("ip", "-j", "link", "show", bport)).get(0);
        assertThat(b0.get("master").asText()).isEqualTo(bridge);
        assertThat(dot).containsPattern("link_" + host + "_" + ifindex(null, bridge) + " -> link_" + host + "_"
                + b0.get("ifindex").asInt() + " \\[id=\"e\\d+\", class=\"master\", label=\"port\"");
    }

    @Test
    void aNamespaceFilterDrawsItsLinksAndWhatTheyStandOnOnly() throws Exception {
        SvgDoc svg = SvgDoc.parse(ok("topology", "--rdma-port", port, "--format", "svg", "--namespace", pod1).out());
        assertThat(svg.byId("link_" + inode(pod1) + "_" + ifindex(pod1, "net1"))).isNotNull();
        assertThat(svg.byId("link_" + inode(null) + "_" + ifindex(null, up))).as("net1's parent").isNotNull();
        assertThat(svg.byId("link_" + inode(pod2) + "_" + ifindex(pod2, "net1"))).isNull();
        assertThat(svg.byId("ns_" + inode(pod3))).isNull();
        assertThat(svg.byId("link_" + inode(null) + "_" + ifindex(null, bridge))).isNull();
    }

    /** The walk's edges in the DOT: walk_1, walk_2, ... as (from, to, labels). */
    private static List<String[]> walk(String dot) {
        List<String[]> out = new ArrayList<>();
        Matcher m = Pattern.compile("\\n  (\\w+) -> (\\w+) \\[id=\"walk_(\\d+)\", class=\"([^\"]*)\","
                + " label=\"([^\"]*)\"").matcher(dot);
        while (m.find()) {
            assertThat(Integer.parseInt(m.group(3))).isEqualTo(out.size() + 1);
            out.add(new String[] {m.group(1), m.group(2), m.group(5), m.group(4)});
        }
        return out;
    }

    private static List<String> stepNames(List<String> labelLines) {
        List<String> out = new ArrayList<>();
        for (String line : labelLines) {
            if (line.startsWith("≠")) {
                continue;
            }
            String s = line.substring(line.indexOf(' ') + 1);
            out.add(s.contains(":") ? s.substring(0, s.indexOf(':')) : s);
        }
        return out;
    }

    @Test
    void explainsHighlightedPathFollowsTheTraceFromPortToListener() throws Exception {
        String[] args = {"explain", "--rdma-port", port, "--dst", "10.67.0.11:7471", "--src", "10.67.0.99:40000",
                "--listener", pod1 + ":0.0.0.0:7471",
            "--mode", "kernel"};
        List<String> withFormat = new ArrayList<>(List.of(args));
        withFormat.addAll(List.of("--format", "dot"));
        List<String[]> walk = walk(ok(withFormat.toArray(String[]::new)).out());
        long pod1Inode = inode(pod1);
        String net1 = "link_" + pod1Inode + "_" + ifindex(pod1, "net1");
        assertThat(walk).extracting(w -> w[0] + ">" + w[1])
                .startsWith("request>port_rxe0_1", "port_rxe0_1>" + net1, net1 + ">ns_" + pod1Inode);
        assertThat(walk.get(walk.size() - 1)[1]).startsWith("listener_" + pod1Inode + "_");
        List<String> lines = new ArrayList<>();
        walk.forEach(w -> lines.addAll(List.of(w[2].split("\\\\n"))));
        assertThat(stepNames(lines)).isEqualTo(KERNEL_ROCE_DELIVER);

        List<String> json = new ArrayList<>(List.of(args));
        json.add("--json");
        List<String> trace = new ArrayList<>();
        JSON.readTree(ok(json.toArray(String[]::new)).out()).get("trace")
                .forEach(s -> trace.add(s.get("step").asText()));
        assertThat(stepNames(lines)).as("the same steps as explain --json").isEqualTo(trace);

        withFormat.set(withFormat.size() - 1, "svg");
        SvgDoc svg = SvgDoc.parse(ok(withFormat.toArray(String[]::new)).out());
        List<String> svgSteps = new ArrayList<>();
        for (int i = 1; i <= walk.size(); i++) {
            Element e = svg.byId("walk_" + i);
            assertThat(e.getAttribute("class")).isEqualTo("edge walk");
            svgSteps.addAll(SvgDoc.texts(e));
        }
        assertThat(stepNames(svgSteps)).isEqualTo(KERNEL_ROCE_DELIVER);
        for (String node : List.of("port_rxe0_1", net1, "ns_" + pod1Inode)) {
            assertThat(svg.byId(node).getAttribute("class")).as(node).contains("walk");
        }
    }

    @Test
    void theSameAddressInTwoPodsMarksWhereKernelAndNetstackPartAndDimsTheShadowedGid() throws Exception {
        int disagreeing = 0;
        for (String pod : List.of(pod1, pod2)) {
            String mac = pod.equals(pod1) ? "02:67:00:00:00:01" : "02:67:00:00:00:02";
            String other = pod.equals(pod1) ? pod2 : pod1;
            String dot = ok("explain", "--rdma-port", port, "--dst", "10.67.0.50:7471", "--src", "10.67.0.99:40000",
                    "--dmac", mac,
                    "--listener", pod1 + ":0.0.0.0:7471", "--listener", pod2 + ":0.0.0.0:7471",
                            "--format", "dot").out();
            List<String[]> walk = walk(dot);
            String macPodNet1 = "link_" + inode(pod) + "_" + ifindex(pod, "net1");
            String otherNet1 = "link_" + inode(other) + "_" + ifindex(other, "net1");
            if (!dot.contains("class=\"walk disagree\"")) {
                assertThat(walk).extracting(w -> w[1]).as("kernel and netstack agree on %s", pod).contains(macPodNet1);
                continue;
            }
            disagreeing++;
            // The kernel took the other pod's GID entry (the lower index); the frame was for this pod.
            String[] marked = walk.stream().filter(w -> w[3].contains("disagree")).findFirst().orElseThrow();
            assertThat(marked[1]).isEqualTo(otherNet1);
            assertThat(marked[2]).startsWith("2 gid-match: index ");
            assertThat(dot).containsPattern("\\n  " + marked[0] + " -> " + macPodNet1 + " \\[id=\"other_mode\"");
            SvgDoc svg = SvgDoc.parse(Cli.run("explain", "--rdma-port", port, "--dst", "10.67.0.50:7471", "--src",
                    "10.67.0.99:40000", "--dmac", mac,
                    "--listener", pod1 + ":0.0.0.0:7471", "--listener", pod2 + ":0.0.0.0:7471", "--format",
                            "svg").out());
            List<Element> dimmed = svg.withClasses("edge", "dim");
            assertThat(dimmed).isNotEmpty();
            assertThat(dimmed).anySatisfy(e -> assertThat(SvgDoc.title(e))
                    .contains("gid-match rejected this: shadowed by index"));
            assertThat(svg.byId("note_disagree")).isNotNull();
            assertThat(SvgDoc.title(svg.byId("note_disagree"))).contains("same IP");
        }
        assertThat(disagreeing).as("exactly one pod's MAC makes the modes disagree").isEqualTo(1);
    }

    @Test
    void replayDrawsOneFrameOfACapture(@TempDir Path tmp) throws Exception {
        Path pcap = tmp.resolve("reqs.pcap");
        HwAddr client = HwAddr.parse("02:67:00:00:00:99");
        try (OutputStream out = Files.newOutputStream(pcap); PcapWriter w = new PcapWriter(out,
                PcapWriter.LINKTYPE_ETHERNET)) {
            String[] dsts = {"10.67.0.11", "10.67.0.12"};
            for (int i = 0; i < dsts.length; i++) {
                var src = InetAddresses.parse("10.67.0.99");
                var dst = InetAddresses.parse(dsts[i]);
                var req = RdmaCmRequests.req(0x2000 + i, 0x0267000000000099L, 0x11, 0x100, PortSpace.TCP, src,
                        40000 + i, dst, 7471, null);
                byte[] f = RoceFrameBuilder.cmFrame(new L2Header(HwAddr.parse("02:67:00:00:00:0" + (i + 1)),
                        client, null), L3Header.of(Gid.ofIp(src), Gid.ofIp(dst)), 0xc000, 0xffff, 0,
                        Mad.of(req, 0x90 + i));
                w.write(1_000_000L * (i + 1), f);
            }
        }
        String dot = ok("replay", pcap.toString(), "--rdma-port", port, "--listener", pod2 + ":0.0.0.0:7471",
                "--mode", "kernel",
                "--format", "dot", "--frame", "2").out();
        List<String[]> walk = walk(dot);
        assertThat(walk).extracting(w -> w[1]).contains("link_" + inode(pod2) + "_" + ifindex(pod2, "net1"),
                "ns_" + inode(pod2));
        assertThat(dot).contains("CM REQ comm 0x00002001");

        Cli.Result noFrame = Cli.run("replay", pcap.toString(), "--rdma-port", port, "--format", "svg");
        assertThat(noFrame.exit()).isEqualTo(2);
        assertThat(noFrame.err()).contains("--frame N");
        Cli.Result badFrame = Cli.run("replay", pcap.toString(), "--rdma-port", port, "--format", "svg",
                "--frame", "9");
        assertThat(badFrame.exit()).isEqualTo(2);
        assertThat(badFrame.err()).contains("requests are in frames 1, 2");
    }

    @Test
    void withoutGraphvizOnThePathTheSvgFormatFailsNamingThePackage() throws Exception {
        List<String> cmd =
                new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "io.cmdemux.cli.Main", "topology", "--rdma-port", port,
                        "--format", "svg"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("PATH", "/nonexistent");
        File err = Files.createTempFile("cmdx-nodot", ".err").toFile();
        pb.redirectError(err);
        Process p = pb.start();
        assertThat(p.waitFor()).isEqualTo(ExitCode.ENVIRONMENT);
        assertThat(Files.readString(err.toPath())).contains("install the Debian package graphviz");
        Files.delete(err.toPath());
    }
}
