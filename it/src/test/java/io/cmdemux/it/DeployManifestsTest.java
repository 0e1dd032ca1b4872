package io.cmdemux.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.namespaces.testkit.Host;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.openshift.api.model.miscellaneous.cncf.cni.v1.NetworkAttachmentDefinition;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * scripts/deploy/ offline, without an API server: the DaemonSet is read into fabric8's kubernetes-model (the
 * Kubernetes API's own types) and fails on any field those types do not have (fabric8 keeps unknown fields in
 * additionalProperties, so every one of those must be empty); then what the kubelet and the apps/v1 API need:
 * an image per container, a selector that matches the template, every mount backed by a volume, absolute
 * hostPaths, probes on a port the container declares; and every option it passes is one `cmdemux serve --help`
 * lists. The NetworkAttachmentDefinition's config is the example conflist, and cmdemux-cni is last in both.
 */
class DeployManifestsTest {
    private static final Path DEPLOY = Path.of("..", "scripts", "deploy");
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private static Object yaml(String file) throws Exception {
        return new Yaml().load(Files.readString(DEPLOY.resolve(file)));
    }

    /** The paths of every non-empty additionalProperties under {@code o}: fields the API's types do not know. */
    private static List<String> unknownFields(Object o, String path, IdentityHashMap<Object, Boolean> seen)
            throws Exception {
        List<String> out = new ArrayList<>();
        if (o == null || seen.put(o, true) != null) {
            return out;
        }
        if (o instanceof Collection<?> c) {
            int i = 0;
            for (Object e : c) {
                out.addAll(unknownFields(e, path + "[" + i++ + "]", seen));
            }
            return out;
        }
        if (o instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.addAll(unknownFields(e.getValue(), path + "." + e.getKey(), seen));
            }
            return out;
        }
        if (!o.getClass().getName().startsWith("io.fabric8.")) {
            return out;
        }
        for (Method g : o.getClass().getMethods()) {
            if (g.getParameterCount() != 0 || !g.getName().startsWith("get") || g.getDeclaringClass() == Object.class) {
                continue;
            }
            Object v = g.invoke(o);
            if (g.getName().equals("getAdditionalProperties")) {
                if (v instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    out.add(path + ": " + extra.keySet());
                }
                continue;
            }
            out.addAll(unknownFields(v, path + "." + g.getName().substring(3), seen));
        }
        return out;
    }

    @Test
    void theDaemonSetHasOnlyFieldsOfTheApiAndWhatTheKubeletNeeds() throws Exception {
        DaemonSet ds = JSON.convertValue(yaml("daemonset.yaml"), DaemonSet.class);

        assertThat(unknownFields(ds, "DaemonSet", new IdentityHashMap<>())).as("fields the API does not have")
                .isEmpty();
        assertThat(ds.getApiVersion()).isEqualTo("apps/v1");
        assertThat(ds.getKind()).isEqualTo("DaemonSet");
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                .as("apps/v1: the selector must match the template").containsAllEntriesOf(ds.getSpec().getSelector()
                        .getMatchLabels());
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        assertThat(pod.getHostNetwork()).isTrue();
        assertThat(pod.getHostPID()).isTrue();
        assertThat(pod.getServiceAccountName()).as("the daemon calls no API: no RBAC to grant").isNull();
        Set<String> volumes = pod.getVolumes().stream().map(Volume::getName).collect(Collectors.toSet());
        for (Volume v : pod.getVolumes()) {
            if (v.getHostPath() != null) {
                assertThat(v.getHostPath().getPath()).as(v.getName()).startsWith("/");
            }
        }
        List<Container> all = new ArrayList<>(pod.getInitContainers());
        all.addAll(pod.getContainers());
        for (Container c : all) {
            assertThat(c.getImage()).as("%s's image", c.getName()).isNotBlank();
            for (VolumeMount m : c.getVolumeMounts()) {
                assertThat(volumes).as("%s mounts %s", c.getName(), m.getName()).contains(m.getName());
                assertThat(m.getMountPath()).startsWith("/");
            }
        }
        Container serve = pod.getContainers().get(0);
        Set<String> portNames = serve.getPorts().stream().map(ContainerPort::getName).collect(Collectors.toSet());
        for (Probe p : List.of(serve.getReadinessProbe(), serve.getLivenessProbe())) {
            assertThat(p.getHttpGet()).isNotNull();
            var port = p.getHttpGet().getPort();
            assertThat(port.getStrVal() == null ? Integer.toString(port.getIntVal()) : port.getStrVal())
                    .as("a probe's port").isIn(portNames);
        }
        assertThat(serve.getVolumeMounts()).extracting(VolumeMount::getMountPath)
                .contains("/run/netns", "/run/cmdemux", "/sys", "/etc/kubernetes/node-feature-discovery/features.d");
        Set<String> envNames = serve.getEnv().stream().map(e -> e.getName()).collect(Collectors.toSet());
        for (String a : serve.getArgs()) {
            if (a.contains("$(")) {
                assertThat(envNames).as("%s expands a variable the container defines", a)
                        .contains(a.replaceAll(".*\\$\\(([A-Z_]+)\\).*", "$1"));
            }
        }

        var help = Host.run(Binaries.cmdemux(null, "serve", "--help").toArray(String[]::new));
        assertThat(help.exit()).as(help.stderr()).isZero();
        for (String a : serve.getArgs().subList(1, serve.getArgs().size())) {
            if (a.startsWith("--")) {
                assertThat(help.stdout()).as("serve takes %s", a).containsPattern(java.util.regex.Pattern.quote(a)
                        + "[=, \\n]");
            }
        }
        assertThat(serve.getArgs().get(0)).isEqualTo("serve");
    }

    @Test
    void theNetworkAttachmentDefinitionCarriesTheExampleConflistWithCmdemuxCniLast() throws Exception {
        NetworkAttachmentDefinition nad = JSON.convertValue(yaml("network-attachment-definition.yaml"),
                NetworkAttachmentDefinition.class);
        assertThat(unknownFields(nad, "NetworkAttachmentDefinition", new IdentityHashMap<>()))
                .as("fields the k8s.cni.cncf.io/v1 type does not have").isEmpty();
        assertThat(nad.getApiVersion()).isEqualTo("k8s.cni.cncf.io/v1");
        assertThat(nad.getKind()).isEqualTo("NetworkAttachmentDefinition");
        assertThat(nad.getMetadata().getName()).isNotBlank();
        JsonNode config = JSON.readTree(nad.getSpec().getConfig());
        JsonNode conflist = JSON.readTree(DEPLOY.resolve("rdma-net.conflist").toFile());
        for (JsonNode list : List.of(config, conflist)) {
            assertThat(list.get("cniVersion").asText()).isIn("0.4.0", "1.0.0", "1.1.0");
            JsonNode plugins = list.get("plugins");
            assertThat(plugins.get(plugins.size() - 1).get("type").asText()).isEqualTo("cmdemux-cni");
            assertThat(plugins.get(0).get("type").asText()).isIn("macvlan", "ipvlan");
        }
        assertThat(config.get("name")).isEqualTo(conflist.get("name"));
        assertThat(config.at("/plugins/0")).isEqualTo(conflist.at("/plugins/0"));
        assertThat(config.at("/plugins/1/rdma")).isEqualTo(conflist.at("/plugins/1/rdma"));
    }

    /**
     * The PodMonitor in the Prometheus Operator's own type (monitoring.coreos.com/v1), and what makes it scrape
     * anything: its namespace and selector find the DaemonSet's pods, and its port is one their container names.
     */
    @Test
    void thePodMonitorIsOfItsApiAndFindsTheDaemonSetsMetricsPort() throws Exception {
        PodMonitor pm = JSON.convertValue(yaml("podmonitor.yaml"), PodMonitor.class);
        assertThat(unknownFields(pm, "PodMonitor", new IdentityHashMap<>()))
                .as("fields the monitoring.coreos.com/v1 type does not have").isEmpty();
        assertThat(pm.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(pm.getKind()).isEqualTo("PodMonitor");
        DaemonSet ds = JSON.convertValue(yaml("daemonset.yaml"), DaemonSet.class);
        String dsNamespace = ds.getMetadata().getNamespace();
        assertThat(pm.getSpec().getNamespaceSelector().getMatchNames()).as("namespaces it looks in")
                .contains(dsNamespace);
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels()).as("the DaemonSet's pods' labels")
                .containsAllEntriesOf(pm.getSpec().getSelector().getMatchLabels());
        Set<String> ports = ds.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts().stream()
                .map(ContainerPort::getName).collect(Collectors.toSet());
        assertThat(pm.getSpec().getPodMetricsEndpoints()).isNotEmpty();
        pm.getSpec().getPodMetricsEndpoints().forEach(e -> {
            assertThat(e.getPort()).as("an endpoint's port").isIn(ports);
            assertThat(e.getPath()).isEqualTo("/metrics");
        });
    }
}
