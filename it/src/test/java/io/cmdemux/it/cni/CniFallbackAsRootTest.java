package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * With the daemon down, the installed cmdemux-cni runs the plugin in a JVM: the checks still hold
 * (soft ports from rdma.softPorts), the registration waits in the daemon's state directory, and the
 * daemon takes it over when it starts. Also STATUS and GC, which only 1.1.0 runtimes send.
 */
class CniFallbackAsRootTest {
    @Test
    void withTheDaemonDownTheJvmAnswersAndTheDaemonLoadsTheRegistrationWhenItStarts() throws Exception {
        try (CniNode node = new CniNode("cnf")) {
            String port = "soft0=" + node.uplink + ":v1,v2";
            String netns = node.pod("p1");
            CniRuntime rt = node.runtime();
            ObjectNode ours = node.cmdemux();
            ours.putObject("rdma").putArray("softPorts").add(port);
            ObjectNode list = CniRuntime.conflist("1.0.0", "rdma-net", node.macvlan(node.uplink), ours);
            CniRuntime.Attachment a = new CniRuntime.Attachment("c1", netns, "net1",
                    "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=trainer-0");

            CniRuntime.AddResult add = rt.add(list, a);

            assertThat(add.ok()).as("%s", add.invocations()).isTrue();
            assertThat(add.result()).isEqualTo(add.of("macvlan").json());
            assertThat(add.last().stderr()).contains("GID index 3").contains("the daemon is down");
            Path pods = node.socket.resolveSibling("pods");
            try (Stream<Path> files = Files.list(pods)) {
                assertThat(files.filter(f -> f.toString().endsWith(".json"))).hasSize(1);
            }

            node.startDaemon(port);
            JsonNode loaded = node.pods();
            assertThat(loaded).hasSize(1);
            assertThat(loaded.at("/0/pod/name").asText()).isEqualTo("trainer-0");
            assertThat(loaded.at("/0/netns/inode").asLong()).isEqualTo(CniNode.inode(netns));
            assertThat(loaded.at("/0/attachments/0/gids/0/index").asInt()).isEqualTo(3);

            assertThat(rt.del(list, a, add.result())).allSatisfy(i -> assertThat(i.exit()).as("%s", i).isZero());
            assertThat(node.pods()).isEmpty();
        }
    }

    @Test
    void statusSaysWhetherTheDaemonRunsAndGcForgetsAttachmentsTheRuntimeNoLongerHas() throws Exception {
        try (CniNode node = new CniNode("cns")) {
            node.startDaemon("soft0=" + node.uplink);
            String netns = node.pod("p1");
            CniRuntime rt = node.runtime();
            ObjectNode list = CniRuntime.conflist("1.0.0", "rdma-net", node.macvlan(node.uplink), node.cmdemux());
            CniRuntime.Attachment a = new CniRuntime.Attachment("c1", netns, "net1",
                    "IgnoreUnknown=1;K8S_POD_NAME=trainer-0");
            CniRuntime.AddResult add = rt.add(list, a);
            assertThat(add.ok()).as("%s", add.invocations()).isTrue();

            // A 1.1.0 runtime's configuration for cmdemux-cni alone (the reference plugins stop at 1.0.0).
            ObjectNode conf = node.cmdemux();
            conf.put("cniVersion", "1.1.0");
            conf.put("name", "rdma-net");
            Map<String, String> env = new LinkedHashMap<>();
            env.put("CNI_COMMAND", "STATUS");
            assertThat(rt.execWith("cmdemux-cni", env, conf.toString().getBytes()).exit()).isZero();

            ObjectNode gc = conf.deepCopy();
            ArrayNode valid = gc.putArray("cni.dev/valid-attachments");
            valid.addObject().put("containerID", "some-other-pod").put("ifname", "net1");
            env.put("CNI_COMMAND", "GC");
            CniRuntime.Invocation collected = rt.execWith("cmdemux-cni", env, gc.toString().getBytes());
            assertThat(collected.exit()).as("%s", collected).isZero();
            assertThat(node.pods()).isEmpty();

            node.stopDaemon();
            env.put("CNI_COMMAND", "STATUS");
            CniRuntime.Invocation down = rt.execWith("cmdemux-cni", env, conf.toString().getBytes());
            assertThat(down.exit()).isNotZero();
            assertThat(down.code()).as("SPEC.md: 50, the plugin is not available").isEqualTo(50);

            assertThat(rt.del(list, a, add.result())).allSatisfy(i -> assertThat(i.exit()).as("%s", i).isZero());
        }
    }
}
