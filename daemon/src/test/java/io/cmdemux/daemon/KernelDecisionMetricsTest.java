package io.cmdemux.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.observer.KernelRequest;
import io.cmdemux.observer.LabRecording;
import io.cmdemux.observer.Observation;
import io.cmdemux.observer.Observations;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The observer's metrics, fed with a real lab recording's requests (it/fixtures/lab/ps-ib-pod). */
class KernelDecisionMetricsTest {
    private static final Path DIR = Path.of("..", "it", "fixtures", "lab", "ps-ib-pod");

    private static List<Observation> observations() throws Exception {
        LabRecording rec = new LabRecording(DIR);
        Observations obs = new Observations(rec.nldev(new ArrayList<>()), null, rec.pids());
        List<Observation> out = new ArrayList<>();
        for (KernelRequest r : rec.replay().requests()) {
            out.add(obs.of(r));
        }
        return out;
    }

    @Test
    void requestsAreCountedByNamespaceOutcomeAndReasonAsExpectedTsvHasThem() throws Exception {
        PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        KernelDecisionMetrics m = new KernelDecisionMetrics(reg, Clock.systemUTC());
        for (Observation o : observations()) {
            assertThat(m.record(o, List.of(), true)).isFalse();
        }
        String scrape = reg.scrape();
        long delivered = Files.readAllLines(DIR.resolve("expected.tsv"), StandardCharsets.UTF_8).stream()
                .filter(l -> l.endsWith("\tdeliver:pod1")).count();
        long rej8 = Files.readAllLines(DIR.resolve("expected.tsv"), StandardCharsets.UTF_8).stream()
                .filter(l -> l.endsWith("\treject:8")).count();
        assertThat(delivered).isPositive();
        assertThat(scrape).contains("kernel_cm_requests_total{device=\"rxe0\",namespace=\"pod1\",outcome=\"deliver\","
                + "pod=\"\",port=\"1\",reason=\"\"} " + (double) delivered);
        assertThat(scrape).contains("outcome=\"reject\",pod=\"\",port=\"0\",reason=\"8\"} " + (double) rej8);
        assertThat(scrape).contains("kernel_prediction_disagreements_total 0.0");
    }

    @Test
    void disagreementsAreCountedAndSaveASnapshotAtMostOnceAMinute() throws Exception {
        PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Instant[] now = {Instant.parse("2026-12-02T00:00:00Z")};
        Clock clock = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now[0];
            }
        };
        KernelDecisionMetrics m = new KernelDecisionMetrics(reg, clock);
        Observation o = observations().get(0);
        assertThat(m.record(o, List.of(), false)).isTrue();
        now[0] = now[0].plusSeconds(30);
        assertThat(m.record(o, List.of(), false)).isFalse();
        now[0] = now[0].plus(Duration.ofSeconds(31));
        assertThat(m.record(o, List.of(), false)).isTrue();
        assertThat(reg.scrape()).contains("kernel_prediction_disagreements_total 3.0");
    }
}
