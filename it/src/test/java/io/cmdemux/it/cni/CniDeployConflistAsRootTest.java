package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * scripts/deploy/rdma-net.conflist as an admin would drop it in: only the node's uplink name, the
 * IPAM state directory and the control socket of this test's daemon are changed.
 */
class CniDeployConflistAsRootTest {
    @Test
    void theExampleConflistWorksOnASoftPortUplink() throws Exception {
        try (CniNode node = new CniNode("cnx")) {
            node.startDaemon("soft0=" + node.uplink);
            String netns = node.pod("p1");
            String text = Files.readString(CniNode.REPO.resolve("scripts/deploy/rdma-net.conflist"))
                    .replace("\"eth1\"", "\"" + node.uplink + "\"")
                    .replace("soft0=eth1", "soft0=" + node.uplink)
                    .replace("/run/cmdemux/cmdemux.sock", node.socket.toString());
            ObjectNode list = (ObjectNode) CniRuntime.JSON.readTree(text);
            ((ObjectNode) list.get("plugins").get(0).get("ipam"))
                    .put("dataDir", Files.createTempDirectory(node.dir, "ipam").toString());
            CniRuntime rt = node.runtime();
            CniRuntime.Attachment a = new CniRuntime.Attachment("c1", netns, "net1",
                    "IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=rdma-0");

            CniRuntime.AddResult add = rt.add(list, a);

            assertThat(add.ok()).as("%s", add.invocations()).isTrue();
            JsonNode pods = node.pods();
            assertThat(pods).hasSize(1);
            assertThat(pods.at("/0/network").asText()).isEqualTo("rdma-net");
            // RoCE v2 only on this port: the default GID at index 0, the pod's IPv4 at 1
            assertThat(pods.at("/0/attachments/0/gids/0/index").asInt()).isEqualTo(1);
            assertThat(rt.check(list, a, add.result())).allSatisfy(i -> assertThat(i.exit()).as("%s", i).isZero());
            assertThat(rt.del(list, a, add.result())).allSatisfy(i -> assertThat(i.exit()).as("%s", i).isZero());
        }
    }
}
