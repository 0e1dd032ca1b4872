package io.cmdemux.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.SoftPortSpec;
import io.cmdemux.gid.SoftRocePort;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.pods.PodKey;
import io.cmdemux.pods.PodRegistration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The plugin's side of the CNI contract, against a fake host. Error codes are the ones SPEC.md's
 * "Error" table gives (1 incompatible version, 4 invalid environment variables, 6 decode failure,
 * 7 invalid network config, 11 try again later, 50 not available).
 */
class CniPluginTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PREV = "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"net1\","
            + "\"mac\":\"02:00:00:00:00:01\",\"sandbox\":\"/run/netns/pod1\"}],"
            + "\"ips\":[{\"interface\":0,\"address\":\"10.77.0.2/24\",\"gateway\":\"10.77.0.1\"}],\"dns\":{}}";

    /** A host with one pod, pod1, whose net1 (a macvlan on the soft port's uplink) holds 10.77.0.2. */
    private final FakeBackend backend = new FakeBackend();
    private final CniPlugin plugin = new CniPlugin(backend);

    private static Map<String, String> env(String command) {
        Map<String, String> e = new HashMap<>();
        e.put("CNI_COMMAND", command);
        e.put("CNI_CONTAINERID", "c1");
        e.put("CNI_NETNS", "/run/netns/pod1");
        e.put("CNI_IFNAME", "net1");
        e.put("CNI_PATH", "/opt/cni/bin");
        e.put("CNI_ARGS",
                "IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=rdma-0;K8S_POD_INFRA_CONTAINER_ID=c1");
        return e;
    }

    private static byte[] conf(String version, String extra) {
        return ("{\"cniVersion\":\"" + version + "\",\"name\":\"rdma-net\",\"type\":\"cmdemux-cni\"" + extra + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode out(CniOutcome o) throws Exception {
        return JSON.readTree(o.stdout());
    }

    @Test
    void versionListsExactlyTheVersionsImplementedAndEchoesTheAskedOne() throws Exception {
        CniOutcome o = plugin.run(Map.of("CNI_COMMAND", "VERSION"),
                "{\"cniVersion\":\"0.4.0\"}".getBytes(StandardCharsets.UTF_8));

        assertThat(o.exitCode()).isZero();
        assertThat(out(o).get("cniVersion").asText()).isEqualTo("0.4.0");
        assertThat(out(o).get("supportedVersions")).extracting(JsonNode::asText)
                .containsExactly("0.4.0", "1.0.0", "1.1.0");
        assertThat(out(plugin.run(Map.of("CNI_COMMAND", "VERSION"), new byte[0])).get("cniVersion").asText())
                .isEqualTo("1.1.0");
    }

    @Test
    void missingVariablesAreError4NamingThem() throws Exception {
        Map<String, String> e = env("ADD");
        e.remove("CNI_NETNS");
        e.remove("CNI_IFNAME");

        CniOutcome o = plugin.run(e, conf("1.0.0", ",\"prevResult\":" + PREV));

        assertThat(o.exitCode()).isNotZero();
        assertThat(out(o).get("code").asInt()).isEqualTo(4);
        assertThat(out(o).get("msg").asText()).contains("CNI_NETNS").contains("CNI_IFNAME");
        assertThat(out(o).get("cniVersion").asText()).isEqualTo("1.0.0");
        assertThat(out(plugin.run(Map.of(), conf("1.0.0", ""))).get("code").asInt()).isEqualTo(4);
        assertThat(out(plugin.run(Map.of("CNI_COMMAND", "FROB"), conf("1.0.0", ""))).get("code").asInt()).isEqualTo(4);
    }

    @Test
    void delNeedsNoNetnsButAddAndCheckDo() throws Exception {
        Map<String, String> e = env("DEL");
        e.remove("CNI_NETNS");
        assertThat(plugin.run(e, conf("1.0.0", "")).exitCode()).isZero();
        Map<String, String> c = env("CHECK");
        c.remove("CNI_NETNS");
        assertThat(out(plugin.run(c, conf("1.0.0", ",\"prevResult\":" + PREV))).get("code").asInt()).isEqualTo(4);
    }

    @Test
    void malformedJsonIsError6AndAVersionWeDoNotSpeakIsError1() throws Exception {
        assertThat(out(plugin.run(env("ADD"), "{\"cniVersion\":".getBytes(StandardCharsets.UTF_8))).get("code").asInt())
                .isEqualTo(6);
        assertThat(out(plugin.run(env("ADD"), new byte[0])).get("code").asInt()).isEqualTo(6);
        assertThat(out(plugin.run(env("ADD"), "[1]".getBytes(StandardCharsets.UTF_8))).get("code").asInt())
                .isEqualTo(6);
        CniOutcome old = plugin.run(env("ADD"), conf("0.3.1", ",\"prevResult\":" + PREV));
        assertThat(out(old).get("code").asInt()).isEqualTo(1);
        assertThat(out(old).get("details").asText()).contains("0.4.0, 1.0.0, 1.1.0");
    }

    @Test
    void unknownCniArgsAreError4UnlessIgnoreUnknownIsSet() throws Exception {
        Map<String, String> e = env("ADD");
        e.put("CNI_ARGS", "K8S_POD_NAME=rdma-0;FOO=bar");
        CniOutcome o = plugin.run(e, conf("1.0.0", ",\"prevResult\":" + PREV));
        assertThat(out(o).get("code").asInt()).isEqualTo(4);
        assertThat(out(o).get("msg").asText()).contains("FOO");

        e.put("CNI_ARGS", "IgnoreUnknown=true;K8S_POD_NAME=rdma-0;FOO=bar");
        assertThat(plugin.run(e, conf("1.0.0", ",\"prevResult\":" + PREV)).exitCode()).isZero();
    }

    @Test
    void addPassesPrevResultOnUnchangedAndRegistersThePodWithItsGidIndex() throws Exception {
        CniOutcome o = plugin.run(env("ADD"), conf("1.0.0", ",\"prevResult\":" + PREV));

        assertThat(o.exitCode()).as(o.stderr()).isZero();
        assertThat(out(o)).isEqualTo(JSON.readTree(PREV));
        assertThat(backend.registered).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo(new PodKey("rdma-net", "c1", "net1"));
            assertThat(r.pod().namespace()).isEqualTo("default");
            assertThat(r.pod().name()).isEqualTo("rdma-0");
            // v2 only: default GID at 0, the IP next
            assertThat(r.attachments().get(0).gids().get(0).index()).isEqualTo(1);
        });
        assertThat(o.stderr()).contains("GID index 1");
    }

    @Test
    void addWithoutPrevResultIsAnInvalidConfigForAChainedPlugin() throws Exception {
        assertThat(out(plugin.run(env("ADD"), conf("1.0.0", ""))).get("code").asInt()).isEqualTo(7);
        assertThat(out(plugin.run(env("CHECK"), conf("1.0.0", ""))).get("code").asInt()).isEqualTo(7);
    }

    @Test
    void notReadyIsAnErrorUnlessRdmaIsNotRequired() throws Exception {
        String prev = PREV.replace("10.77.0.2", "10.77.0.9"); // an address the pod does not have
        CniOutcome strict = plugin.run(env("ADD"), conf("1.0.0",
                ",\"rdma\":{\"waitMillis\":0},\"prevResult\":" + prev));
        assertThat(out(strict).get("code").asInt()).isEqualTo(CniError.ADDRESS_MISSING);
        assertThat(out(strict).get("details").asText()).contains("fix:");

        CniOutcome lax = plugin.run(env("ADD"), conf("1.0.0",
                ",\"rdma\":{\"required\":false,\"waitMillis\":0},\"prevResult\":" + prev));
        assertThat(lax.exitCode()).isZero();
        assertThat(out(lax)).isEqualTo(JSON.readTree(prev));
        assertThat(lax.stderr()).contains("warning").contains("10.77.0.9");
        assertThat(backend.registered).isEmpty();
    }

    @Test
    void badRdmaSettingsAreInvalidConfigAndUnknownOnesUnsupportedFields() throws Exception {
        assertThat(out(plugin.run(env("ADD"), conf("1.0.0", ",\"rdma\":{\"gidType\":\"v3\"},\"prevResult\":" + PREV)))
                .get("code").asInt()).isEqualTo(7);
        assertThat(out(plugin.run(env("ADD"), conf("1.0.0", ",\"rdma\":{\"waitMillis\":-1},\"prevResult\":" + PREV)))
                .get("code").asInt()).isEqualTo(7);
        CniOutcome typo = plugin.run(env("ADD"), conf("1.0.0",
                ",\"rdma\":{\"gidtype\":\"v2\"},\"prevResult\":" + PREV));
        assertThat(out(typo).get("code").asInt()).isEqualTo(2);
        assertThat(out(typo).get("msg").asText()).contains("rdma.gidtype").contains("\"v2\"");
    }

    @Test
    void delForgetsTheRegistrationAndIsIdempotent() {
        assertThat(plugin.run(env("DEL"), conf("1.0.0", "")).exitCode()).isZero();
        assertThat(plugin.run(env("DEL"), conf("1.0.0", "")).exitCode()).isZero();
        // settings DEL does not need do not stop it from cleaning up
        assertThat(plugin.run(env("DEL"), conf("1.0.0", ",\"rdma\":{\"gidType\":\"v9\"}")).exitCode()).isZero();
        assertThat(backend.unregistered).containsExactly(new PodKey("rdma-net", "c1", "net1"),
                new PodKey("rdma-net", "c1", "net1"), new PodKey("rdma-net", "c1", "net1"));
    }

    @Test
    void statusAndGcExistOnlyFrom110() throws Exception {
        assertThat(out(plugin.run(Map.of("CNI_COMMAND", "STATUS"), conf("1.0.0", ""))).get("code").asInt())
                .isEqualTo(1);
        assertThat(plugin.run(Map.of("CNI_COMMAND", "STATUS"), conf("1.1.0", "")).exitCode()).isZero();
        backend.down = true;
        CniOutcome down = plugin.run(Map.of("CNI_COMMAND", "STATUS"), conf("1.1.0", ""));
        assertThat(out(down).get("code").asInt()).isEqualTo(50);
        assertThat(plugin.run(Map.of("CNI_COMMAND", "STATUS"), conf("1.1.0", ",\"rdma\":{\"required\":false}"))
                .exitCode()).isZero();
    }

    @Test
    void gcKeepsOnlyTheValidAttachmentsOfItsNetwork() throws Exception {
        String valid = ",\"cni.dev/valid-attachments\":[{\"containerID\":\"c2\",\"ifname\":\"net1\"}]";
        assertThat(plugin.run(Map.of("CNI_COMMAND", "GC", "CNI_PATH", "/opt/cni/bin"), conf("1.1.0", valid))
                .exitCode()).isZero();
        assertThat(backend.kept).containsExactly(Set.of(new PodKey("rdma-net", "c2", "net1")));
        assertThat(out(plugin.run(Map.of("CNI_COMMAND", "GC"), conf("1.1.0", ""))).get("code").asInt()).isEqualTo(7);
    }

    /** One pod namespace (its path is not looked at); registrations recorded. */
    private static final class FakeBackend implements CniBackend, PodRegistrar, RdmaState {
        final List<PodRegistration> registered = new ArrayList<>();
        final List<PodKey> unregistered = new ArrayList<>();
        final List<Set<PodKey>> kept = new ArrayList<>();
        boolean down;
        final TopologySnapshot snap;
        final RdmaDevice soft0;
        final NetnsId pod;

        FakeBackend() {
            DumpBuilder b = new DumpBuilder();
            b.link(b.host(), 2, "uplink").kind("veth").add();
            pod = b.pod("pod1", 1);
            b.link(pod, 2, "net1").macvlan(2, 0, 4).add();
            b.addr(pod, 2, "10.77.0.2/24");
            snap = b.snapshot(1);
            soft0 = SoftRocePort.compute(SoftPortSpec.parse("soft0=uplink"), snap);
        }

        @Override
        public NetnsId host() {
            return snap.host();
        }

        @Override
        public NetnsId podNetns(String path) {
            return pod;
        }

        @Override
        public RdmaState state(RdmaSettings rdma, String podNetns) {
            return this;
        }

        @Override
        public PodRegistrar registrar(Path controlSocket) {
            return this;
        }

        @Override
        public String name() {
            return "fake";
        }

        @Override
        public RdmaView current() {
            return new RdmaView(1, snap, new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED, List.of(soft0)));
        }

        @Override
        public RdmaView awaitChange(RdmaView seen, long maxWaitMillis) {
            return seen;
        }

        @Override
        public FreshNetns read(String netnsPath) {
            NetnsState s = snap.namespace(pod);
            return new FreshNetns(pod, new ArrayList<>(s.links().values()), s.addresses());
        }

        @Override
        public String register(PodRegistration r) {
            registered.add(r);
            return "recorded by the test";
        }

        @Override
        public void unregister(PodKey key) {
            unregistered.add(key);
        }

        @Override
        public List<PodKey> retainOnly(String network, Set<PodKey> valid) {
            kept.add(valid);
            return List.of();
        }

        @Override
        public String unavailable() {
            return down ? "the test says so" : null;
        }
    }
}
