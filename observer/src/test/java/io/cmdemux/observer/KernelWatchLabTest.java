package io.cmdemux.observer;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.gid.SysfsReader;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.observer.nldev.NldevDump;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
        KernelWatch watch = KernelWatch.recording(() -> host, rec.owners(host.topology()));
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

    /**
     * The same recording as the live kernel gives it: trace_pipe's lines, then an idle pipe while the trace clock
     * runs on. Live, the requester's own events are not there to say a request was sent (the requester is on
     * another host), so silence is declared by the timeout, and a request that ib_cm dropped before rdma_cm
     * (no passive-side event names its comm ID) cannot be seen at all: it must be one of expected.tsv's drops.
     */
    @ParameterizedTest
    @MethodSource("fixtures")
    void theLiveLoopWithItsSilenceTimeoutGivesExpectedTsvForWhatThePassiveSideSaw(Path dir) throws Exception {
        LabRecording rec = new LabRecording(dir);
        HostState host = host(dir);
        Map<String, String> invisible = new LinkedHashMap<>();
        Map<String, String> visible = rec.expectedLive(invisible);
        assertThat(invisible.values()).as("%s: requests no passive-side event names were dropped before rdma_cm",
                dir.getFileName()).allMatch("drop"::equals);
        List<KernelWatch.Verdict> verdicts = new ArrayList<>();
        KernelWatch watch = KernelWatch.live(() -> host, rec.owners(host.topology()), Duration.ofSeconds(5));
        try (KernelWatch.Source source = new IdleAfterTheEnd(rec.source(), Duration.ofSeconds(6))) {
            watch.run(source, rec.rejectReasons(), verdicts::add);
        }
        Map<String, String> got = new LinkedHashMap<>();
        for (KernelWatch.Verdict v : verdicts) {
            assertThat(got.put(v.observation().request().localCommIdText(), v.observation().label()))
                    .as("%s: %s reported twice", dir.getFileName(), v.observation().request().localCommIdText())
                    .isNull();
        }
        assertThat(got).as("%s: live loop vs. expected.tsv's requests that reached the passive side",
                dir.getFileName()).containsExactlyInAnyOrderEntriesOf(visible);
    }

    /** A recording, then {@code idle} of an idle trace_pipe on a clock that went on from its last event. */
    static final class IdleAfterTheEnd implements KernelWatch.Source {
        private final KernelWatch.Source recording;
        private final long idleNanos;
        private long last = Long.MIN_VALUE;
        private long now = Long.MIN_VALUE;
        private boolean ended;

        IdleAfterTheEnd(KernelWatch.Source recording, Duration idle) {
            this.recording = recording;
            this.idleNanos = idle.toNanos();
        }

        @Override
        public String readLine() throws IOException {
            return recording.readLine();
        }

        @Override
        public String poll(long waitMillis) throws IOException {
            if (ended) {
                now += waitMillis * 1_000_000;
                return now - last >= idleNanos ? null : "";
            }
            String line = recording.readLine();
            if (line == null) {
                ended = true;
                now = last;
                return "";
            }
            Matcher m = TIME.matcher(line);
            if (m.find()) {
                last = Math.max(last, Long.parseLong(m.group(1)) * 1_000_000_000L + Long.parseLong(m.group(2)) * 1000);
            }
            return line;
        }

        @Override
        public OptionalLong now() {
            return ended ? OptionalLong.of(now) : OptionalLong.empty();
        }

        @Override
        public NldevDump dump() throws IOException {
            return recording.dump();
        }

        @Override
        public void close() throws IOException {
            recording.close();
        }

        private static final Pattern TIME = Pattern.compile(" (\\d+)\\.(\\d{6}): ");
    }

    /** The fixture's rtnl/ and sysfs/ as the host; no listeners: the loop takes the kernel's from the dump. */
    static HostState host(Path dir) throws Exception {
        SnapshotFile.Contents c = SnapshotFile.read(dir);
        TopologySnapshot topo = TopologySnapshot.build(1, c.host(), c.dumps());
        return new HostState(topo, SysfsReader.read(SysfsLayout.snapshot(c.root()), topo).topology(),
                ListenerTable.empty());
    }
}
