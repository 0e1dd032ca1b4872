package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CNI spec's error results from the installed cmdemux-cni, answered by the daemon. The
 * expected codes are those of SPEC.md's error table, and for each case the reference plugin
 * tuning (another chained plugin) is run on the same input to show it answers alike.
 */
class CniSpecErrorsAsRootTest {
    private static CniNode node;
    private static CniRuntime rt;
    private static String netns;

    @BeforeAll
    static void node() throws Exception {
        node = new CniNode("cne");
        node.startDaemon("soft0=" + node.uplink);
        netns = node.pod("p1");
        rt = node.runtime();
    }

    @AfterAll
    static void close() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    private static byte[] conf(String type, String version) {
        ObjectNode c = type.equals("cmdemux-cni") ? node.cmdemux()
                : CniRuntime.JSON.createObjectNode().put("type", type);
        c.put("cniVersion", version);
        c.put("name", "rdma-net");
        return c.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static CniRuntime.Attachment attachment(String args) {
        return new CniRuntime.Attachment("c1", netns, "net1", args);
    }

    @Test
    void malformedJsonIsError6LikeTheReferencePlugins() {
        byte[] bad = ("{\"cniVersion\":\"1.0.0\",\"controlSocket\":\"" + node.socket + "\",\"name\":")
                .getBytes(StandardCharsets.UTF_8);
        CniRuntime.Invocation ours = rt.exec("cmdemux-cni", "ADD", attachment("IgnoreUnknown=1"), bad);
        CniRuntime.Invocation tuning = rt.exec("tuning", "ADD", attachment("IgnoreUnknown=1"), bad);

        assertThat(ours.exit()).isNotZero();
        assertThat(ours.code()).isEqualTo(6);
        assertThat(tuning.code()).isEqualTo(6);
        assertThat(ours.json().has("msg")).isTrue();
    }

    @Test
    void missingEnvironmentVariablesAreError4NamingThemLikeTheReferencePlugins() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CNI_COMMAND", "ADD");
        env.put("CNI_NETNS", netns);
        env.put("CNI_IFNAME", "net1");
        CniRuntime.Invocation ours = rt.execWith("cmdemux-cni", env, conf("cmdemux-cni", "1.0.0"));
        CniRuntime.Invocation tuning = rt.execWith("tuning", env, conf("tuning", "1.0.0"));

        assertThat(ours.exit()).isNotZero();
        assertThat(ours.code()).isEqualTo(4);
        assertThat(ours.json().get("msg").asText()).contains("CNI_CONTAINERID");
        assertThat(tuning.code()).isEqualTo(4);
    }

    @Test
    void unknownCniArgsWithoutIgnoreUnknownAreError4AndTheReferencePluginsRefuseThemToo() throws Exception {
        ObjectNode list = CniRuntime.conflist("1.0.0", "rdma-net", node.macvlan(node.uplink), node.cmdemux());
        CniRuntime.AddResult add = rt.add(list, attachment("IgnoreUnknown=1;K8S_POD_NAME=trainer-0"));
        assertThat(add.ok()).as("%s", add.invocations()).isTrue();
        ObjectNode ours = CniRuntime.derive(list, list.get("plugins").get(1), add.of("macvlan").json());

        CniRuntime.Invocation refused = rt.exec("cmdemux-cni", "ADD",
                attachment("K8S_POD_NAME=trainer-0;FOO=bar"), ours);
        CniRuntime.Invocation macvlan = rt.exec("macvlan", "ADD", attachment("K8S_POD_NAME=trainer-0;FOO=bar"),
                CniRuntime.derive(list, list.get("plugins").get(0), null));

        assertThat(refused.exit()).isNotZero();
        assertThat(refused.code()).isEqualTo(4);
        assertThat(refused.json().get("msg").asText()).contains("FOO");
        assertThat(refused.json().get("details").asText()).contains("IgnoreUnknown");
        assertThat(macvlan.exit()).as("the reference plugin refuses unknown CNI_ARGS as well: %s", macvlan).isNotZero();
        assertThat(macvlan.stdout()).contains("FOO");
        assertThat(rt.exec("cmdemux-cni", "ADD", attachment("IgnoreUnknown=1;K8S_POD_NAME=trainer-0;FOO=bar"), ours)
                .exit()).isZero();
        assertThat(rt.del(list, attachment("IgnoreUnknown=1"), add.result()))
                .allSatisfy(i -> assertThat(i.exit()).as("%s", i).isZero());
    }

    @Test
    void aVersionThePluginDoesNotSpeakIsError1AndVersionSaysWhichItDoes() {
        CniRuntime.Invocation old = rt.exec("cmdemux-cni", "ADD", attachment("IgnoreUnknown=1"),
                conf("cmdemux-cni", "0.3.1"));
        CniRuntime.Invocation tuning = rt.exec("tuning", "ADD", attachment("IgnoreUnknown=1"), conf("tuning", "1.1.0"));
        assertThat(old.code()).isEqualTo(1);
        assertThat(tuning.code()).as("the reference plugins answer a version they do not speak with 1 too")
                .isEqualTo(1);

        JsonNode v = rt.execWith("cmdemux-cni", Map.of("CNI_COMMAND", "VERSION"),
                "{\"cniVersion\":\"1.0.0\"}".getBytes(StandardCharsets.UTF_8)).json();
        assertThat(v.get("cniVersion").asText()).isEqualTo("1.0.0");
        assertThat(v.get("supportedVersions")).extracting(JsonNode::asText).containsExactly("0.4.0", "1.0.0", "1.1.0");
    }
}
