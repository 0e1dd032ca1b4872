package io.cmdemux.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.gid.SysfsReader;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.observer.KernelWatch;
import io.cmdemux.observer.LabRecording;
import io.cmdemux.pods.PodDirectory;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * serve's observer, fed by the same loop as on the live kernel with a real lab recording (ps-ib-pod) as its
 * trace_pipe and nldev socket: the metrics, the status page's section, and a disagreement's log, counter and
 * saved host state (a live snapshot of this host: root, for setns).
 */
class KernelObserverAsRootTest {
    private static final Path DIR = Path.of("..", "it", "fixtures", "lab", "ps-ib-pod");

    private static List<KernelWatch.Verdict> verdicts() throws Exception {
        LabRecording rec = new LabRecording(DIR);
        SnapshotFile.Contents c = SnapshotFile.read(DIR);
        TopologySnapshot topo = TopologySnapshot.build(1, c.host(), c.dumps());
        HostState host = new HostState(topo, SysfsReader.read(SysfsLayout.snapshot(c.root()), topo).topology(),
                ListenerTable.empty());
        List<KernelWatch.Verdict> out = new ArrayList<>();
        try (KernelWatch.Source s = rec.source()) {
            KernelWatch.recording(() -> host, rec.owners(topo)).run(s, rec.rejectReasons(), out::add);
        }
        assertThat(out).isNotEmpty();
        return out;
    }

    private static KernelObserver observer(PrometheusMeterRegistry reg, Path dir) {
        return new KernelObserver(new KernelDecisionMetrics(reg, Clock.systemUTC()), () -> PodDirectory.EMPTY, dir,
                SysfsLayout.live(SysfsLayout.LIVE_ROOT), Clock.systemUTC());
    }

    @Test
    void everyRequestIsCountedListedAndAgreesOnARecording(@TempDir Path tmp) throws Exception {
        PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        List<KernelWatch.Verdict> vs = verdicts();
        try (KernelObserver o = observer(reg, tmp)) {
            vs.forEach(o::accept);
            assertThat(o.total()).isEqualTo(vs.size());
            assertThat(o.disagreements()).isZero();
            long delivered = Files.readAllLines(DIR.resolve("expected.tsv"), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.endsWith("\tdeliver:pod1")).count();
            assertThat(reg.scrape()).contains("kernel_cm_requests_total{device=\"rxe0\",namespace=\"pod1\","
                    + "outcome=\"deliver\",pod=\"\",port=\"1\",reason=\"\"} " + (double) delivered)
                    .contains("kernel_prediction_disagreements_total 0.0");
            StatusPage.KernelSection k = StatusSite.kernelSection(o);
            assertThat(k.rows()).hasSize(Math.min(vs.size(), KernelObserver.RECENT));
            assertThat(k.rows().get(0).seq()).isEqualTo(vs.size()); // newest first
            assertThat(k.rows()).filteredOn(r -> r.kernel().equals("deliver:pod1"))
                    .allSatisfy(r -> assertThat(r.agreement()).isEqualTo("agree"))
                    .allSatisfy(r -> assertThat(r.cmdemux()).isEqualTo("deliver:pod1"));
        }
        try (Stream<Path> s = Files.list(tmp)) {
            assertThat(s.toList()).as("no disagreement, nothing saved").isEmpty();
        }
    }

    @Test
    void aDisagreementIsCountedAndSavesTheHostsStateOnceAMinute(@TempDir Path tmp) throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new AssertionError("this test saves a live snapshot of every namespace: run it as root (setns)");
        }
        PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        KernelWatch.Verdict real = verdicts().stream().filter(KernelWatch.Verdict::compared).findFirst()
                .orElseThrow();
        // The same request, as if cmdemux had decided otherwise than the kernel.
        KernelWatch.Verdict wrong = new KernelWatch.Verdict(real.observation(), real.state(), real.prediction(), false);
        try (KernelObserver o = observer(reg, tmp)) {
            o.accept(wrong);
            o.accept(wrong);
            assertThat(o.disagreements()).isEqualTo(2);
            assertThat(reg.scrape()).contains("kernel_prediction_disagreements_total 2.0");
            assertThat(StatusSite.kernelSection(o).rows()).extracting(StatusPage.KernelRow::agreement)
                    .containsExactly("DISAGREE", "DISAGREE");
        } // the saver goes on after close
        for (int i = 0; i < 600 && zips(tmp).isEmpty(); i++) {
            Thread.sleep(50);
        }
        List<Path> zips = zips(tmp);
        assertThat(zips).as("one snapshot for two disagreements within a minute").hasSize(1);
        String name = zips.get(0).getFileName().toString().replace(".zip", "");
        assertThat(name).matches("disagreement-\\d{8}T\\d{6}Z-comm-0x[0-9a-f]{8}")
                .endsWith(real.observation().request().localCommIdText());
        String note = Files.readString(tmp.resolve(name + ".txt"));
        assertThat(note).contains("the kernel " + real.observation().label()).contains("cmdemux's kernel mode");
        // The saved file is a snapshot that --snapshot reads back: this host's namespaces.
        SnapshotFile.Contents back = SnapshotFile.read(zips.get(0));
        assertThat(back.dumps()).isNotEmpty();
    }

    private static List<Path> zips(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".zip")).toList();
        }
    }
}
