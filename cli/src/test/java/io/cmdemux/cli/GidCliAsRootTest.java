package io.cmdemux.cli;

import static io.cmdemux.namespaces.testkit.Host.bash;
import static io.cmdemux.namespaces.testkit.Host.sh;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.namespaces.testkit.LinkLocal;
import io.cmdemux.namespaces.testkit.Netns;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gids, gid-index and gids check on the live host: a soft port on a veth uplink, macvlan pods and
 * a veth-only pod made with iproute2. Expected values come from iproute2, stat and the kernel's
 * rules. Needs root.
 */
class GidCliAsRootTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private Netns ns;
    private String uplink;
    private String port;

    @BeforeEach
    void setUp() {
        ns = new Netns("gc");
        uplink = ns.hostLink("up");
        bash("ip link add " + uplink + " type veth peer name " + ns.name("upp") + " && ip link set " + uplink
                + " addrgenmode none && ip link set " + uplink + " up && ip link set " + ns.name("upp") + " up");
        port = "soft0=" + uplink;
    }

    @AfterEach
    void tearDown() {
        ns.close();
    }

    private String macvlanPod(String suffix, String ip) {
        String pod = ns.add(suffix);
        String mv = ns.name("m" + suffix);
        bash("ip link add " + mv + " link " + uplink + " type macvlan mode bridge && ip link set " + mv
                + " netns " + pod + " && ip -n " + pod + " link set " + mv + " name net1 && ip -n " + pod + " addr add "
                + ip + "/24 dev net1 && ip -n " + pod + " link set net1 up");
        return pod;
    }

    private String vethPod(String suffix, String ip) {
        String pod = ns.add(suffix);
        String vh = ns.hostLink("h" + suffix);
        bash("ip link add " + vh + " type veth peer name eth0 netns " + pod + " && ip -n " + pod + " addr add " + ip
                + "/24 dev eth0 && ip -n " + pod + " link set eth0 up && ip link set " + vh + " up");
        return pod;
    }

    private static long inode(String path) {
        return Long.parseLong(sh("stat", "-L", "-c", "%i", path).strip());
    }

    private static JsonNode ipLink(String pod, String dev) throws Exception {
        return JSON.readTree(pod == null ? sh("ip", "-j", "link", "show", "dev", dev)
                : sh("ip", "-n", pod, "-j", "link", "show", "dev", dev)).get(0);
    }

    private static List<JsonNode> inNamespace(JsonNode gids, long inode) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : gids) {
            if (!e.get("ndev").isNull() && e.get("ndev").get("inode").asLong() == inode) {
                out.add(e);
            }
        }
        return out;
    }

    @Test
    void gidsShowsEachMacvlanPodsGidsWithItsNamespaceAndGidIndexAnswersForIt() throws Exception {
        String p1 = macvlanPod("p1", "10.68.0.1");
        String p2 = macvlanPod("p2", "10.68.0.2");
        String vp = vethPod("vp", "10.69.0.2");
        Cli.Result r = Cli.run("gids", "--json", "--device", "soft0", "--rdma-port", port);
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode gids = JSON.readTree(r.out());

        JsonNode up = ipLink(null, uplink);
        // Index 0: the one reserved default slot (RoCE v2 only), fe80::EUI-64 of the uplink's MAC.
        JsonNode first = gids.get(0);
        assertThat(first.get("index").asInt()).isZero();
        assertThat(first.get("gid").asText()).isEqualTo(LinkLocal.ofMac(up.get("address").asText()));
        assertThat(first.get("type").asText()).isEqualTo("RoCE v2");
        assertThat(first.get("ndev").get("name").asText()).isEqualTo(uplink);
        assertThat(first.get("ndev").get("ifindex").asInt()).isEqualTo(up.get("ifindex").asInt());
        assertThat(first.get("ndev").get("inode").asLong()).isEqualTo(inode("/proc/self/ns/net"));

        List<Integer> podIndices = new ArrayList<>();
        for (String pod : List.of(p1, p2)) {
            long ino = inode("/run/netns/" + pod);
            JsonNode net1 = ipLink(pod, "net1");
            List<JsonNode> mine = inNamespace(gids, ino);
            // One entry per IP (RoCE v2 only): the IPv4 address, then the link-local one (IPv4
            // before IPv6 within a device, _add_netdev_ips); the ndev is the pod's macvlan.
            assertThat(mine).extracting(e -> e.get("gid").asText())
                    .containsExactly("::ffff:" + (pod.equals(p1) ? "10.68.0.1" : "10.68.0.2"),
                            LinkLocal.ofMac(net1.get("address").asText()));
            assertThat(mine).allSatisfy(e -> {
                assertThat(e.get("ndev").get("name").asText()).isEqualTo("net1");
                assertThat(e.get("ndev").get("ifindex").asInt()).isEqualTo(net1.get("ifindex").asInt());
                assertThat(e.get("namespaceNames")).extracting(JsonNode::asText).containsExactly(pod);
            });
            assertThat(mine.get(1).get("index").asInt()).isEqualTo(mine.get(0).get("index").asInt() + 1);
            podIndices.add(mine.get(0).get("index").asInt());
        }
        // A fresh enumeration fills slots 1..4 with the two pods, one after the other.
        assertThat(podIndices).containsExactlyInAnyOrder(1, 3);
        assertThat(inNamespace(gids, inode("/run/netns/" + vp))).isEmpty();

        Cli.Result i1 = Cli.run("gid-index", "--netns", "/run/netns/" + p1, "--ip", "10.68.0.1", "--rdma-port", port);
        assertThat(i1.exit()).as(i1.err()).isZero();
        assertThat(i1.out().strip()).isEqualTo(Integer.toString(podIndices.get(0)));

        Process sleeper = new ProcessBuilder("ip", "netns", "exec", p2, "sleep", "60").start();
        try {
            Cli.Result i2 = Cli.run("gid-index", "--pid", Long.toString(sleeper.pid()), "--ip", "10.68.0.2", "--type",
                    "v2", "--json", "--rdma-port", port);
            assertThat(i2.exit()).as(i2.err()).isZero();
            JsonNode a = JSON.readTree(i2.out());
            assertThat(a.get("index").asInt()).isEqualTo(podIndices.get(1));
            assertThat(a.get("netns").get("names")).extracting(JsonNode::asText).containsExactly(p2);
            assertThat(a.get("reason").isNull()).isTrue();
        } finally {
            sleeper.destroyForcibly();
        }

        Cli.Result none = Cli.run("gid-index", "--netns", "/run/netns/" + vp, "--ip", "10.69.0.2", "--rdma-port", port);
        assertThat(none.exit()).isEqualTo(ExitCode.NO);
        assertThat(none.out()).isEmpty();
        assertThat(none.err()).contains("eth0 (veth)").contains("not an upper");

        Cli.Result notHere = Cli.run("gid-index", "--netns", "/run/netns/" + p1, "--ip", "10.99.9.9",
                "--rdma-port", port);
        assertThat(notHere.exit()).isEqualTo(ExitCode.NO);
        assertThat(notHere.err()).contains("10.99.9.9 is not configured in netns " + p1);
    }

    @Test
    void checkReportsTheVethPodAndTheSameIpInTwoPods() throws Exception {
        String p1 = macvlanPod("p1", "10.68.1.1");
        String vp = vethPod("vp", "10.69.1.2");
        String p3 = macvlanPod("p3", "10.68.1.1");
        Cli.Result r = Cli.run("gids", "check", "--json", "--rdma-port", port);
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCode.NO);
        JsonNode problems = JSON.readTree(r.out()).get("problems");
        List<JsonNode> ours = new ArrayList<>();
        problems.forEach(p -> {
            // Every NOT_AN_UPPER message names our port's netdev, so for those only the subject (pod/link) says whose
            // they are; otherwise other tests' pods on a shared machine count as ours.
            boolean notAnUpper = p.get("kind").asText().equals("NOT_AN_UPPER");
            if (p.get("subject").asText().startsWith(ns.prefix())
                    || (!notAnUpper && p.get("message").asText().contains(ns.prefix()))) {
                ours.add(p);
            }
        });
        // Other tests' namespaces may exist on the host meanwhile; their messages name our uplink too, so
        // the pods are told apart by the subject alone.
        assertThat(ours).filteredOn(p -> p.get("kind").asText().equals("NOT_AN_UPPER")
                && p.get("subject").asText().startsWith(ns.prefix()))
                .extracting(p -> p.get("subject").asText()).containsExactly(vp + "/eth0");
        assertThat(ours).filteredOn(p -> p.get("kind").asText().equals("NOT_AN_UPPER"))
                .allSatisfy(p -> assertThat(p.get("fix").asText()).contains("macvlan").contains(uplink));
        assertThat(ours).filteredOn(p -> p.get("kind").asText().equals("SAME_IP_IN_TWO_NAMESPACES"))
                .singleElement().satisfies(p -> assertThat(p.get("message").asText()).contains("10.68.1.1").contains(p1)
                        .contains(p3));

        // The pod whose entry has the higher index is warned that the lower one wins.
        Cli.Result a = Cli.run("gid-index", "--netns", "/run/netns/" + p1, "--ip", "10.68.1.1", "--rdma-port", port);
        Cli.Result b = Cli.run("gid-index", "--netns", "/run/netns/" + p3, "--ip", "10.68.1.1", "--rdma-port", port);
        assertThat(a.exit()).isZero();
        assertThat(b.exit()).isZero();
        int ia = Integer.parseInt(a.out().strip());
        int ib = Integer.parseInt(b.out().strip());
        Cli.Result loser = ia < ib ? b : a;
        Cli.Result winner = ia < ib ? a : b;
        assertThat(loser.err()).contains("warning").contains("is lower");
        assertThat(winner.err()).doesNotContain("warning");
    }

    @Test
    void snapshotSaveCarriesSysfsAndTheSoftPortReadsTheSameFromIt(@TempDir Path tmp) throws Exception {
        macvlanPod("p1", "10.68.2.1");
        Path file = tmp.resolve("snap.zip");
        Path ib = Path.of("../gid/src/test/resources/sysfs/ib-ipoib").toAbsolutePath().normalize();
        Cli.Result save = Cli.run("snapshot", "save", file.toString(), "--sysfs-root", ib.toString());
        assertThat(save.exit()).as(save.err()).isZero();
        assertThat(save.err()).containsPattern("[1-9][0-9]* sysfs files");

        Cli.Result fromFile = Cli.run("gids", "--json", "--snapshot", file.toString(), "--rdma-port", port);
        assertThat(fromFile.exit()).as(fromFile.err()).isZero();
        JsonNode all = JSON.readTree(fromFile.out());
        // The fixture's IB port: two GIDs (the port GID and one alias GUID), type IB, no ndev.
        List<JsonNode> mlx = new ArrayList<>();
        all.forEach(e -> {
            if (e.get("device").asText().equals("mlx5_0")) {
                mlx.add(e);
            }
        });
        assertThat(mlx).extracting(e -> e.get("gid").asText() + " " + e.get("type").asText() + " "
                + e.get("ndev").isNull())
                .containsExactly("fe80::b859:9f03:a1:b2c0 IB true", "fe80::b859:9f03:a1:b2c8 IB true");
        Cli.Result live = Cli.run("gids", "--json", "--device", "soft0", "--rdma-port", port);
        JsonNode soft = JSON.readTree(Cli.run("gids", "--json", "--device", "soft0", "--snapshot", file.toString(),
                "--rdma-port", port).out());
        // Inodes are the same; the snapshot keeps names, ifindexes and addresses.
        assertThat(soft).isEqualTo(JSON.readTree(live.out()));
    }
}
