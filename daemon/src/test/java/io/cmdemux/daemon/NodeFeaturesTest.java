package io.cmdemux.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.PkeyTable;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.LinkInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NFD local feature file: every line is what NFD's customization guide ("Local feature source", "Input
 * format") accepts, `# comment` or `<namespace>/<name>[=<value>]`, and every label is one the Kubernetes API
 * takes (a DNS-subdomain prefix; a name and a value of at most 63 characters, alphanumeric at both ends, with
 * `-_.` inside). pod2 holds pod1's IP on a second macvlan, a GID problem `gids check` counts.
 */
class NodeFeaturesTest {
    private static final Pattern NFD_LINE = Pattern.compile("#.*|[^\\s=#][^\\s=]*/[^\\s=]+(=\\S*)?");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern LABEL_NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
    private static final Pattern LABEL_VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");

    private final DumpBuilder b = new DumpBuilder();
    private final NetnsId host = b.host();
    private final NetnsId pod1 = b.pod("pod1", 1);
    private final NetnsId pod2 = b.pod("pod2", 2);

    private TopologySnapshot snapshot() {
        b.link(host, 1, "lo").arphrd(772).add();
        b.link(host, 2, "up0").mac("02:00:00:00:00:02").add();
        b.link(pod1, 5, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).add().addr(pod1, 5, "10.0.0.11/24");
        b.link(pod2, 6, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).add().addr(pod2, 6, "10.0.0.11/24");
        return b.snapshot(1);
    }

    private RdmaTopology rdma(String state) {
        LinkRef up0 = new LinkRef(host, 2);
        List<GidEntry> gids = List.of(
                new GidEntry(0, Gid.parse("fe80::ff:fe00:2"), GidType.ROCE_V1, up0, OptionalInt.empty()),
                new GidEntry(1, Gid.parse("fe80::ff:fe00:2"), GidType.ROCE_V2, up0, OptionalInt.empty()),
                new GidEntry(2, Gid.parse("::ffff:10.0.0.11"), GidType.ROCE_V2, new LinkRef(pod1, 5),
                        OptionalInt.empty()),
                new GidEntry(3, Gid.parse("::ffff:10.0.0.11"), GidType.ROCE_V2, new LinkRef(pod2, 6),
                        OptionalInt.empty()));
        RdmaPort port = new RdmaPort(1, RdmaPort.LinkLayer.ETHERNET, state, 1L, List.of(), gids,
                new PkeyTable(List.of(0xffff)), up0, List.of());
        return new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED,
                List.of(new RdmaDevice("soft0", 1L, true, null, List.of(port))));
    }

    @Test
    void theLabelsSayWhatThePortIs() {
        Map<String, String> l = NodeFeatures.labels(snapshot(), rdma("4: ACTIVE"));

        String p = "feature.node.kubernetes.io/cmdemux-";
        assertThat(l).containsEntry(p + "ready", "true").containsEntry(p + "netns-mode", "shared")
                .containsEntry(p + "ports", "1").containsEntry(p + "soft0-1.rdma-cm", "ready")
                .containsEntry(p + "soft0-1.kind", "soft").containsEntry(p + "soft0-1.link-layer", "ethernet")
                .containsEntry(p + "soft0-1.gid-types", "roce-v1.roce-v2");
        assertThat(Integer.parseInt(l.get(p + "gid-problems"))).as("the same IP in two namespaces").isPositive();
        assertThat(NodeFeatures.labels(snapshot(), rdma("1: DOWN"))).containsEntry(p + "soft0-1.rdma-cm", "down");
    }

    @Test
    void everyLineIsInNfdsInputFormatAndEveryLabelIsAKubernetesLabel() {
        String text = NodeFeatures.text(NodeFeatures.labels(snapshot(), rdma("4: ACTIVE")));

        for (String line : text.split("\n")) {
            assertThat(line).matches(NFD_LINE);
            if (line.startsWith("#")) {
                assertThat(line).doesNotStartWith("# +"); // a directive (+expiry-time, +no-label) would change the rest
                continue;
            }
            String key = line.substring(0, line.indexOf('='));
            String value = line.substring(line.indexOf('=') + 1);
            String prefix = key.substring(0, key.indexOf('/'));
            assertThat(prefix).hasSizeLessThanOrEqualTo(253).matches(DNS_SUBDOMAIN);
            assertThat(key.substring(key.indexOf('/') + 1)).matches(LABEL_NAME);
            assertThat(value).matches(LABEL_VALUE);
        }
        assertThat(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSizeLessThan(NodeFeatures.MAX_BYTES);
    }

    @Test
    void deviceNamesBecomeLabelParts() {
        assertThat(NodeFeatures.labelPart("mlx5_0")).isEqualTo("mlx5_0");
        assertThat(NodeFeatures.labelPart("-rxe:0/1-")).isEqualTo("rxe_0_1");
        assertThat(NodeFeatures.labelPart("x".repeat(80))).hasSize(32);
        assertThat(NodeFeatures.labelPart("ü")).isEqualTo("x");
    }

    @Test
    void theFileIsRenamedIntoPlaceOnlyOnChangeAndRemovedAtClose(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("features.d/cmdemux");
        NodeFeatures f = new NodeFeatures(dir.resolve("features.d"));
        TopologySnapshot snap = snapshot();

        f.update(snap, rdma("4: ACTIVE"));
        assertThat(Files.readString(file)).contains("cmdemux-soft0-1.rdma-cm=ready\n");
        long first = Files.getLastModifiedTime(file).toMillis();
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(first - 10_000));
        f.update(snap, rdma("4: ACTIVE"));
        assertThat(Files.getLastModifiedTime(file).toMillis()).as("unchanged: not rewritten").isEqualTo(first - 10_000);
        f.update(snap, rdma("1: DOWN"));
        assertThat(Files.readString(file)).contains("cmdemux-soft0-1.rdma-cm=down\n");
        try (var files = Files.list(dir.resolve("features.d"))) {
            assertThat(files.map(x -> x.getFileName().toString())).containsExactly("cmdemux");
        }

        f.close();
        assertThat(file).doesNotExist();
    }
}
