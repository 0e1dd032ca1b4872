package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.testkit.Host;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * cmdemux-cni chained after the real reference plugins (macvlan + host-local from Debian's
 * containernetworking-plugins), driven as a runtime drives a conflist, with the daemon running.
 *
 * <p>The expected GID index comes from how every RoCE port lays out its table (show_gids on mlx5
 * or rxe): the default GIDs made from the port's MAC take the reserved indices 0 (RoCE v1) and 1
 * (RoCE v2), and an IPv4 address gets one entry per type after them, 2 (v1) and 3 (v2); hence the
 * NCCL_IB_GID_INDEX=3 of so many RDMA deployments. The uplink and the pods have IPv6 off, so no
 * other address takes a slot first. The pod's IP is the one host-local handed out, read back with
 * iproute2; the namespace's identity is `stat -L` of its file.
 */
class CniChainAsRootTest {
    private static final String NETWORK = "rdma-net";
    private static final String K8S_ARGS =
            "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=trainer-0;K8S_POD_INFRA_CONTAINER_ID=c1";

    @ParameterizedTest(name = "cniVersion {0}")
    @ValueSource(strings = {"0.4.0", "1.0.0"})
    void macvlanOnTheSoftPortUplinkPassesRegistersItsGidIndexChecksAndDeletes(String version) throws Exception {
        try (CniNode node = new CniNode("cnc")) {
            node.startDaemon("soft0=" + node.uplink + ":v1,v2");
            String netns = node.pod("p1");
            String netnsName = netns.substring("/run/netns/".length());
            CniRuntime rt = node.runtime();
            ObjectNode list = CniRuntime.conflist(version, NETWORK, node.macvlan(node.uplink), node.cmdemux());
            CniRuntime.Attachment a = new CniRuntime.Attachment("c1", netns, "net1", K8S_ARGS);

            CniRuntime.AddResult add = rt.add(list, a);

            assertThat(add.ok()).as("%s", add.invocations()).isTrue();
            JsonNode macvlanResult = add.of("macvlan").json();
            assertThat(add.result()).as("cmdemux-cni passes the macvlan result on unchanged").isEqualTo(macvlanResult);
            assertThat(macvlanResult.get("cniVersion").asText()).isEqualTo(version);
            String cidr = macvlanResult.get("ips").get(0).get("address").asText();
            assertThat(CniNode.ipv4(netnsName, "net1")).containsExactly(cidr);
            String ip = cidr.substring(0, cidr.indexOf('/'));

            JsonNode pods = node.pods();
            assertThat(pods).hasSize(1);
            JsonNode reg = pods.get(0);
            assertThat(reg.get("network").asText()).isEqualTo(NETWORK);
            assertThat(reg.get("containerId").asText()).isEqualTo("c1");
            assertThat(reg.get("ifname").asText()).isEqualTo("net1");
            assertThat(reg.at("/pod/namespace").asText()).isEqualTo("team-a");
            assertThat(reg.at("/pod/name").asText()).isEqualTo("trainer-0");
            assertThat(reg.at("/netns/inode").asLong()).isEqualTo(CniNode.inode(netns));
            JsonNode gid = reg.at("/attachments/0/gids/0");
            assertThat(gid.get("ip").asText()).isEqualTo(ip);
            assertThat(gid.get("index").asInt()).isEqualTo(3);
            assertThat(gid.get("type").asText()).isEqualTo("RoCE v2");
            assertThat(add.last().stderr()).contains("GID index 3").contains("registered with the daemon");

            // gid-index by the pod's Kubernetes name, from the daemon's state directory
            Host.Result byName = CniNode.cli("gid-index", "--pod", "team-a/trainer-0", "--pods-dir",
                    node.socket.resolveSibling("pods").toString(),
                    "--rdma-port", "soft0=" + node.uplink + ":v1,v2");
            assertThat(byName.exit()).as(byName.stderr()).isZero();
            assertThat(byName.stdout().strip()).isEqualTo("3");
            // topology names the pod in its namespace
            JsonNode topo = CniRuntime.JSON.readTree(CniNode.cli("topology", "--json", "--pods-dir",
                    node.socket.resolveSibling("pods").toString()).stdout());
            JsonNode mine = null;
            for (JsonNode n : topo.get("namespaces")) {
                if (n.get("inode").asLong() == CniNode.inode(netns)) {
                    mine = n;
                }
            }
            assertThat(mine).isNotNull();
            assertThat(mine.at("/pods/0/name").asText()).isEqualTo("trainer-0");
            // gids marks the pod's GID entries with its name
            JsonNode gids = CniRuntime.JSON.readTree(CniNode.cli("gids", "--json", "--pods-dir",
                    node.socket.resolveSibling("pods").toString(),
                    "--rdma-port", "soft0=" + node.uplink + ":v1,v2").stdout());
            assertThat(gids).filteredOn(e -> e.get("gid").asText().equals("::ffff:" + ip))
                    .hasSize(2).allSatisfy(e -> assertThat(e.get("pods")).extracting(JsonNode::asText)
                            .containsExactly("team-a/trainer-0"));
            // and so does the daemon's own topology answer
            JsonNode daemonTopo = node.query(io.cmdemux.control.protocol.QueryKind.TOPOLOGY);
            assertThat(daemonTopo.get("namespaces")).filteredOn(n -> n.get("inode").asLong() == CniNode.inode(netns))
                    .singleElement().satisfies(n -> assertThat(n.at("/pods/0/namespace").asText()).isEqualTo("team-a"));

            List<CniRuntime.Invocation> check = rt.check(list, a, add.result());
            assertThat(check).as("%s", check).allSatisfy(i -> assertThat(i.exit()).isZero());

            List<CniRuntime.Invocation> del = rt.del(list, a, add.result());
            assertThat(del).as("%s", del).allSatisfy(i -> assertThat(i.exit()).isZero());
            assertThat(node.pods()).isEmpty();
        }
    }

    @Test
    void macvlanOnAVethThatIsNoSoftPortFailsAndTheErrorNamesTheUplinkToUse() throws Exception {
        try (CniNode node = new CniNode("cnv")) {
            node.startDaemon("soft0=" + node.uplink);
            String other = node.veth("ot");
            String netns = node.pod("p1");
            CniRuntime rt = node.runtime();
            ObjectNode list = CniRuntime.conflist("1.0.0", NETWORK, node.macvlan(other), node.cmdemux());
            CniRuntime.Attachment a = new CniRuntime.Attachment("c1", netns, "net1", K8S_ARGS);

            CniRuntime.AddResult add = rt.add(list, a);

            assertThat(add.ok()).isFalse();
            assertThat(add.of("macvlan").exit()).isZero();
            CniRuntime.Invocation ours = add.last();
            assertThat(ours.type()).isEqualTo("cmdemux-cni");
            assertThat(ours.exit()).isNotZero();
            JsonNode err = ours.json();
            assertThat(err.get("code").asInt()).as("a plugin-specific code, 100 or above").isGreaterThanOrEqualTo(100);
            assertThat(err.get("cniVersion").asText()).isEqualTo("1.0.0");
            assertThat(err.get("msg").asText()).contains("net1").contains(other).contains("not an upper");
            assertThat(err.get("details").asText()).contains("\"master\": \"" + node.uplink + "\"");
            assertThat(node.pods()).isEmpty();

            // a runtime cleans up a failed ADD with a DEL; it has no result to pass
            assertThat(rt.del(list, a, null)).allSatisfy(i -> assertThat(i.exit()).as("%s", i).isZero());
        }
    }

    @Test
    void delTwiceSucceedsAndTheSecondHasNothingLeftToForget() throws Exception {
        try (CniNode node = new CniNode("cnd")) {
            node.startDaemon("soft0=" + node.uplink);
            String netns = node.pod("p1");
            CniRuntime rt = node.runtime();
            ObjectNode list = CniRuntime.conflist("1.0.0", NETWORK, node.macvlan(node.uplink), node.cmdemux());
            CniRuntime.Attachment a = new CniRuntime.Attachment("c1", netns, "net1", K8S_ARGS);
            CniRuntime.AddResult add = rt.add(list, a);
            assertThat(add.ok()).as("%s", add.invocations()).isTrue();
            assertThat(node.pods()).hasSize(1);

            assertThat(rt.del(list, a, add.result())).allSatisfy(i -> assertThat(i.exit()).as("%s", i).isZero());
            // the runtime dropped its cache after the first DEL succeeded: no prevResult this time
            assertThat(rt.del(list, a, null)).allSatisfy(i -> assertThat(i.exit()).as("%s", i).isZero());
            assertThat(node.pods()).isEmpty();
        }
    }

    @Test
    void delAfterTheNamespaceWasDeletedSucceeds() throws Exception {
        try (CniNode node = new CniNode("cnn")) {
            node.startDaemon("soft0=" + node.uplink);
            String netns = node.pod("p1");
            CniRuntime rt = node.runtime();
            ObjectNode list = CniRuntime.conflist("1.0.0", NETWORK, node.macvlan(node.uplink), node.cmdemux());
            CniRuntime.Attachment a = new CniRuntime.Attachment("c1", netns, "net1", K8S_ARGS);
            CniRuntime.AddResult add = rt.add(list, a);
            assertThat(add.ok()).as("%s", add.invocations()).isTrue();

            String name = netns.substring("/run/netns/".length());
            Host.sh("ip", "netns", "del", name);
            node.ns.forget(name);

            List<CniRuntime.Invocation> del = rt.del(list, a, add.result());
            assertThat(del).as("%s", del).allSatisfy(i -> assertThat(i.exit()).isZero());
            assertThat(node.pods()).isEmpty();
        }
    }

    @Test
    void checkAfterThePodsIpWasRemovedFailsNamingTheIp() throws Exception {
        try (CniNode node = new CniNode("cnk")) {
            node.startDaemon("soft0=" + node.uplink);
            String netns = node.pod("p1");
            String name = netns.substring("/run/netns/".length());
            CniRuntime rt = node.runtime();
            ObjectNode list = CniRuntime.conflist("1.0.0", NETWORK, node.macvlan(node.uplink), node.cmdemux());
            CniRuntime.Attachment a = new CniRuntime.Attachment("c1", netns, "net1", K8S_ARGS);
            CniRuntime.AddResult add = rt.add(list, a);
            assertThat(add.ok()).as("%s", add.invocations()).isTrue();
            String cidr = add.result().get("ips").get(0).get("address").asText();

            Host.sh("ip", "-n", name, "addr", "del", cidr, "dev", "net1");
            assertThat(CniNode.ipv4(name, "net1")).isEmpty();

            List<CniRuntime.Invocation> check = rt.check(list, a, add.result());
            CniRuntime.Invocation macvlan = check.get(0);
            CniRuntime.Invocation ours = check.get(1);
            assertThat(macvlan.exit()).as("the reference plugin agrees the attachment is broken: %s",
                    macvlan).isNotZero();
            assertThat(ours.exit()).as("%s", ours).isNotZero();
            assertThat(ours.code()).isGreaterThanOrEqualTo(100);
            assertThat(ours.json().get("msg").asText()).contains(cidr.substring(0, cidr.indexOf('/'))).contains("net1");

            assertThat(rt.del(list, a, add.result())).allSatisfy(i -> assertThat(i.exit()).as("%s", i).isZero());
        }
    }
}
