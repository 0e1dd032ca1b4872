package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.control.client.BlockingControlClient;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Wire;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * POD_REGISTER against the real daemon: a namespace named in a message is checked against the
 * kernel (`stat -L` of the path is the oracle for which namespace it is), and the GID indices kept
 * are the daemon's own, not the sender's.
 */
class CniRegistrationClaimsAsRootTest {
    private static Frame register(CniNode node, JsonNode claim) throws Exception {
        try (BlockingControlClient c = BlockingControlClient.connect(node.socket, Duration.ofSeconds(10))) {
            return c.call(Wire.POD_REGISTER,
                    List.of(Record.mandatory(Wire.R_JSON, CniRuntime.JSON.writeValueAsBytes(claim))));
        }
    }

    private static ObjectNode claim(String path, long inode, String ip, int index) {
        ObjectNode c = CniRuntime.JSON.createObjectNode();
        c.put("network", "rdma-net").put("containerId", "claim").put("ifname", "net1");
        c.putObject("netns").put("path", path).put("inode", inode);
        c.putObject("pod").put("namespace", "team-a").put("name", "claimed");
        c.put("gidType", "RoCE v2");
        ObjectNode a = c.putArray("attachments").addObject();
        a.put("ifname", "net1").put("ifindex", 2).put("device", "soft0").put("port", 1).put("linkLayer", "ethernet");
        a.putArray("gids").addObject().put("ip", ip).put("index", index).put("gid", "::ffff:" + ip)
                .put("type", "RoCE v2");
        return c;
    }

    @Test
    void aClaimIsCheckedAgainstTheKernelAndTheDaemonKeepsItsOwnGidIndex() throws Exception {
        try (CniNode node = new CniNode("cnr")) {
            node.startDaemon("soft0=" + node.uplink + ":v1,v2");
            String pod1 = node.pod("p1");
            String pod2 = node.pod("p2");
            CniRuntime rt = node.runtime();
            // pod1 gets a macvlan with an address from host-local, with no cmdemux-cni in the list
            CniRuntime.AddResult add = rt.add(CniRuntime.conflist("1.0.0", "rdma-net", node.macvlan(node.uplink)),
                    new CniRuntime.Attachment("claim", pod1, "net1", "IgnoreUnknown=1"));
            assertThat(add.ok()).as("%s", add.invocations()).isTrue();
            String cidr = add.result().get("ips").get(0).get("address").asText();
            String ip = cidr.substring(0, cidr.indexOf('/'));
            long inode1 = CniNode.inode(pod1);
            long inode2 = CniNode.inode(pod2);

            Frame swapped = register(node, claim(pod1, inode2, ip, 3));
            assertThat(swapped.status()).isEqualTo(Wire.EINVAL);
            assertThat(swapped.text()).contains(Long.toString(inode1)).contains("not " + inode2);

            // this test runs in the host namespace
            String hostNetns = "/proc/" + ProcessHandle.current().pid() + "/ns/net";
            Frame host = register(node, claim(hostNetns, CniNode.inode(hostNetns), ip, 3));
            assertThat(host.status()).isEqualTo(Wire.EINVAL);
            assertThat(host.text()).contains("host");

            Frame gone = register(node, claim(node.dir.resolve("no-such-netns").toString(), inode1, ip, 3));
            assertThat(gone.status()).isEqualTo(Wire.ENOENT);

            Frame empty = register(node, claim(pod2, inode2, ip, 3));
            assertThat(empty.status()).as("pod2 has no net1 at all").isEqualTo(Wire.EINVAL);
            assertThat(node.pods()).isEmpty();

            Frame lie = register(node, claim(pod1, inode1, ip, 42));
            assertThat(lie.status()).as(lie.text()).isEqualTo(Wire.OK);
            JsonNode kept = CniRuntime.JSON.readTree(lie.first(Wire.R_JSON).orElseThrow().value());
            assertThat(kept.at("/attachments/0/gids/0/index").asInt()).isEqualTo(3);
            assertThat(node.pods().at("/0/attachments/0/gids/0/index").asInt()).isEqualTo(3);
            assertThat(node.pods().at("/0/netns/inode").asLong()).isEqualTo(inode1);
        }
    }
}
