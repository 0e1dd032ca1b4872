package io.cmdemux.observer;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.gid.SysfsReader;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.namespaces.TopologySnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The loop that `watch` and `serve` run on the live kernel, fed a lab recording as its trace_pipe and nldev
 * socket: every request comes out with the outcome derive-expected found (from the listeners' logs and the
 * wire, not from tracefs), and every request the kprobe saw with a kernel-mode prediction, made from the
 * kprobe's fields and the kernel's own listeners (the nldev dump), that agrees with the kernel.
 */
class KernelWatchLabTest {
    static List<Path> fixtures() throws Exception {
        return LabFixtures.withTrace();
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void theLiveLoopOnARecordingGivesExpectedTsvAndAgreeingPredictions(Path dir) throws Exception {
        LabRecording rec = new LabRecording(dir);
        HostState host = host(dir);
        List<KernelWatch.Verdict> verdicts = new ArrayList<>();
        KernelWatch watch = new KernelWatch(() -> host, rec.owners(host.topology()), true);
        try (KernelWatch.Source source = rec.source()) {
            watch.run(source, rec.rejectReasons(), verdicts::add);
        }
        assertThat(watch.skips()).as("skips in %s", dir.getFileName()).isEmpty();
        Map<String, String> got = new LinkedHashMap<>();
        int compared = 0;
        for (KernelWatch.Verdict v : verdicts) {
            got.put(v.observation().request().localCommIdText(), v.observation().label());
            if (v.observation().request().probe() != null) {
                assertThat(v.compared()).as("%s: a prediction for %s", dir.getFileName(),
                        v.observation().request().probe()).isTrue();
            }
            if (v.compared()) {
                compared++;
                assertThat(v.agree()).as("%s %s: kernel %s, cmdemux %s", dir.getFileName(),
                        v.observation().request().localCommIdText(), v.observation().label(),
                        Prediction.label(v.state(), v.prediction())).isTrue();
            }
        }
        assertThat(got).containsExactlyInAnyOrderEntriesOf(LabFixtures.expected(dir));
        if (Files.readString(rec.trace()).contains(" req: (")) {
            assertThat(compared).as("requests the kprobe saw in %s", dir.getFileName()).isPositive();
        }
    }

    /** The fixture's rtnl/ and sysfs/ as the host; no listeners: the loop takes the kernel's from the dump. */
    static HostState host(Path dir) throws Exception {
        SnapshotFile.Contents c = SnapshotFile.read(dir);
        TopologySnapshot topo = TopologySnapshot.build(1, c.host(), c.dumps());
        return new HostState(topo, SysfsReader.read(SysfsLayout.snapshot(c.root()), topo).topology(),
                ListenerTable.empty());
    }
}
