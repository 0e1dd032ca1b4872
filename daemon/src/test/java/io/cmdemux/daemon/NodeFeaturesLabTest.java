package io.cmdemux.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.gid.SysfsReader;
import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.namespaces.TopologySnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The node labels on the kernel lab's recordings: the guest kernel's own sysfs files (port state, link layer,
 * the types of the GID entries) and its ib_core netns mode, shared and exclusive, read here as plain files,
 * against the labels the daemon makes from the same snapshot through its readers.
 */
class NodeFeaturesLabTest {
    private static final Path LAB = Path.of("..", "it", "fixtures", "lab");
    private static final String P = NodeFeatures.PREFIX;

    static List<Path> fixtures() throws IOException {
        try (Stream<Path> s = Stream.concat(Files.list(LAB), Files.list(LAB.resolve("rxe-limits")))) {
            return s.filter(d -> Files.isDirectory(d.resolve("sysfs")) && Files.isRegularFile(d.resolve("netns.tsv")))
                    .sorted().toList();
        }
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void theLabelsSayWhatTheGuestKernelsFilesSay(Path dir) throws Exception {
        SnapshotFile.Contents c = SnapshotFile.read(dir);
        TopologySnapshot topo = TopologySnapshot.build(1, c.host(), c.dumps());
        RdmaTopology rdma = SysfsReader.read(SysfsLayout.snapshot(c.root()), topo).topology();
        Map<String, String> labels = NodeFeatures.labels(topo, rdma);

        assertThat(labels).as(dir.getFileName().toString()).containsEntry(P + "netns-mode",
                exclusive(dir) ? "exclusive" : "shared");
        int ports = 0;
        try (Stream<Path> devs = Files.list(dir.resolve("sysfs"))) {
            for (Path dev : devs.sorted().toList()) {
                if (rdma.devices().stream().noneMatch(d -> d.name().equals(dev.getFileName().toString()))) {
                    continue;
                }
                try (Stream<Path> ps = Files.list(dev.resolve("ports"))) {
                    for (Path port : ps.toList()) {
                        String p = P + NodeFeatures.labelPart(dev.getFileName().toString()) + "-"
                                + port.getFileName() + ".";
                        String state = Files.readString(port.resolve("state")).strip();
                        assertThat(labels).as("%s %s", dir.getFileName(), port)
                                .containsEntry(p + "rdma-cm", state.endsWith("ACTIVE") ? "ready" : "down")
                                // Every lab device is soft-RoCE: `rdma link add NAME type rxe` (README's commands).
                                .containsEntry(p + "kind", "soft")
                                .containsEntry(p + "link-layer",
                                        Files.readString(port.resolve("link_layer")).strip().toLowerCase());
                        assertThat(Set.of(labels.get(p + "gid-types").split("\\."))).as("%s %s", dir, port)
                                .isEqualTo(gidTypes(port));
                        ports++;
                    }
                }
            }
        }
        assertThat(ports).as("RDMA ports labelled in %s", dir).isPositive();
    }

    @Test
    void bothModesAreAmongTheRecordings() throws Exception {
        long exclusive = 0;
        for (Path d : fixtures()) {
            exclusive += exclusive(d) ? 1 : 0;
        }
        assertThat(exclusive).as("recordings in exclusive mode").isPositive();
        assertThat(exclusive).as("recordings in shared mode").isLessThan(fixtures().size());
    }

    /** The guest's ib_core parameter where the fixture keeps it; else the boot parameters its README names. */
    private static boolean exclusive(Path dir) throws IOException {
        Path mode = dir.resolve(SysfsLayout.SNAPSHOT_NETNS_MODE);
        if (Files.isRegularFile(mode)) {
            return Files.readString(mode).strip().equals("N");
        }
        return Files.readAllLines(dir.resolve("README.md")).stream()
                .anyMatch(l -> l.startsWith("- Kernel parameters beyond the defaults:")
                        && l.contains("ib_core.netns_mode=0"));
    }

    /** gid_attrs/types/N of the entries the recording kept (assemble leaves out all-zero GIDs), as label words. */
    private static Set<String> gidTypes(Path port) throws IOException {
        Path types = port.resolve("gid_attrs/types");
        Set<String> out = new TreeSet<>();
        try (Stream<Path> ts = Files.list(types)) {
            for (Path t : ts.toList()) {
                if (Files.isRegularFile(port.resolve("gids").resolve(t.getFileName()))) {
                    out.add(switch (Files.readString(t).strip()) {
                        case "RoCE v2" -> "roce-v2";
                        case "IB/RoCE v1" -> "roce-v1";
                        default -> throw new AssertionError(t + ": " + Files.readString(t));
                    });
                }
            }
        }
        return out.isEmpty() ? Set.of("none") : out;
    }
}
