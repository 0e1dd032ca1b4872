package io.cmdemux.gid;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.namespaces.TopologySnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The GID tables the rules compute from a topology against the kernel's own: every kernel-lab
 * fixture (it/fixtures/lab, issue 10) carries the guest's rtnetlink dumps and its
 * /sys/class/infiniband tables, read in the same second. For every RoCE port the entries
 * (GID, type, ndev) must be the same; gids check reports any difference as TABLE_DIFFERS.
 */
class LabGidTablesTest {
    private static final Path LAB = Path.of("..", "it", "fixtures", "lab");

    static List<Path> fixtures() throws Exception {
        List<Path> out = new ArrayList<>();
        for (Path base : List.of(LAB, LAB.resolve("rxe-limits"))) {
            try (Stream<Path> s = Files.list(base)) {
                s.filter(p -> Files.isRegularFile(p.resolve(SnapshotFile.NETNS_TSV))).sorted().forEach(out::add);
            }
        }
        return out;
    }

    @Test
    void everyRecordedPortHoldsTheEntriesTheRulesCompute() throws Exception {
        List<Path> all = fixtures();
        assertThat(all)
                .as("kernel-lab fixtures under %s (scripts/lab/record)", LAB.toAbsolutePath())
                .hasSizeGreaterThan(30);
        List<String> differences = new ArrayList<>();
        int ports = 0;
        int entries = 0;
        for (Path dir : all) {
            SnapshotFile.Contents c = SnapshotFile.read(dir);
            TopologySnapshot snap = TopologySnapshot.build(1, c.host(), c.dumps());
            SysfsReader.Result r = SysfsReader.read(SysfsLayout.snapshot(c.root()), snap);
            for (RdmaDevice d : r.topology().devices()) {
                for (RdmaPort p : d.ports()) {
                    if (p.roce() && p.netdev() != null) {
                        ports++;
                        entries += p.gids().size();
                    }
                }
            }
            for (GidProblem p : GidCheck.run(snap, r.topology(), r.problems())) {
                if (p.kind() == GidProblem.Kind.TABLE_DIFFERS || p.kind() == GidProblem.Kind.SYSFS) {
                    differences.add(LAB.relativize(dir) + ": " + p.message());
                }
            }
        }
        assertThat(differences).as("fixtures whose kernel tables differ from the computed ones").isEmpty();
        // two RoCE ports (server and client) per fixture at least, each with its default GID and more
        assertThat(ports).isGreaterThanOrEqualTo(2 * all.size());
        assertThat(entries).isGreaterThan(3 * all.size());
    }
}
