package io.cmdemux.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.daemon.KernelDecisionMetrics;
import io.cmdemux.observer.KernelRequest;
import io.cmdemux.observer.LabRecording;
import io.cmdemux.observer.Observations;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The dashboard (scripts/deploy/grafana-dashboard.json) and the PodMonitor (podmonitor.yaml) against a real
 * `cmdemux serve` that has delivered, rejected and dropped requests and counted bad frames: every series their
 * queries and relabelings name is in its /metrics, with every label they select or aggregate by (`instance` and
 * `job` are the ones Prometheus adds at scrape time); the PodMonitor finds the DaemonSet's pods and a port of
 * theirs, and its path answers.
 */
class MetricsExamplesAsRootTest {
    private static final Path DEPLOY = Path.of("..", "scripts", "deploy");
    private static final Set<String> TARGET_LABELS = Set.of("instance", "job");
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([^}]*)\\}");
    private static final Pattern BY = Pattern.compile("\\bby \\(([^)]*)\\)");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)");

    /** Series name to the label names it has, from the Prometheus text format. */
    private static Map<String, Set<String>> series(String exposition) {
        Map<String, Set<String>> out = new HashMap<>();
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            String name = line.substring(0, brace > 0 && brace < space ? brace : space);
            Set<String> labels = out.computeIfAbsent(name, n -> new HashSet<>());
            if (brace > 0 && brace < space) {
                Matcher m = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"").matcher(line.substring(brace,
                        line.lastIndexOf('}')));
                while (m.find()) {
                    labels.add(m.group(1));
                }
            }
        }
        return out;
    }

    private static String observerScrape() throws Exception {
        PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        KernelDecisionMetrics m = new KernelDecisionMetrics(reg, Clock.systemUTC());
        LabRecording rec = new LabRecording(Path.of("..", "it", "fixtures", "lab", "ps-ib-pod"));
        Observations obs = new Observations(rec.nldev(new ArrayList<>()), null, rec.pids());
        for (KernelRequest r : rec.replay().requests()) {
            m.record(obs.of(r), List.of("default/pod1"), true);
        }
        return reg.scrape();
    }

    @Test
    void everySeriesAndLabelTheDashboardAndThePodMonitorNameIsScraped() throws Exception {
        JsonNode dashboard = ServeFixture.JSON.readTree(DEPLOY.resolve("grafana-dashboard.json").toFile());
        Map<String, Object> podMonitor = new Yaml().load(Files.readString(DEPLOY.resolve("podmonitor.yaml")));
        Map<String, Object> daemonSet = new Yaml().load(Files.readString(DEPLOY.resolve("daemonset.yaml")));

        try (ServeFixture f = new ServeFixture("mx")) {
            f.startServe();
            try (Proc pod1 = f.listen(1, "0.0.0.0", 7471)) {
                assertThat(f.connect("10.88.0.11:7471", 3000, "--no-wait-rep").get("result").asText()).isEqualTo("mra");
                assertThat(f.connect("10.88.0.11:9999", 3000).get("rejectReason").asInt()).isEqualTo(8);
                assertThat(f.connect("10.88.0.14:7471", 1500).get("result").asText()).isEqualTo("timeout");
                byte[] r = f.req(0x6d780001, "10.88.0.11", 7471);
                f.inject(List.of(r, r, java.util.Arrays.copyOf(r, 100)));
                Thread.sleep(500);
            }
            var scrape = f.http("/metrics");
            assertThat(scrape.statusCode()).isEqualTo(200);
            Map<String, Set<String>> have = series(scrape.body());
            // The observer's request series appear once the kernel has received a request, which this machine's
            // kernel (no ib_cm) cannot: they come from the daemon's own KernelDecisionMetrics, fed a lab
            // recording's requests as serve's observer feeds it.
            assertThat(have).containsKey("kernel_observer_running")
                    .containsKey("kernel_prediction_disagreements_total");
            have.putAll(series(observerScrape()));

            List<String> exprs = new ArrayList<>();
            dashboard.findValues("expr").forEach(e -> exprs.add(e.asText()));
            for (JsonNode v : dashboard.at("/templating/list")) {
                if (v.has("query") && v.get("query").asText().startsWith("label_values(")) {
                    exprs.add(v.get("query").asText().replaceFirst("label_values\\(([a-z_]+), ([a-z_]+)\\)",
                            "by ($2) ($1{})"));
                }
            }
            assertThat(exprs).as("the dashboard's queries").hasSizeGreaterThan(10);
            for (String expr : exprs) {
                Set<String> by = new HashSet<>();
                Matcher b = BY.matcher(expr);
                while (b.find()) {
                    for (String l : b.group(1).split(",")) {
                        by.add(l.strip());
                    }
                }
                Matcher s = SELECTOR.matcher(expr);
                int selectors = 0;
                while (s.find()) {
                    selectors++;
                    String name = s.group(1);
                    assertThat(have).as("%s (in %s) is scraped", name, expr).containsKey(name);
                    Set<String> used = new HashSet<>(by);
                    Matcher m = MATCHER.matcher(s.group(2));
                    while (m.find()) {
                        used.add(m.group(1));
                    }
                    used.removeAll(TARGET_LABELS);
                    assertThat(have.get(name)).as("the labels of %s that %s uses", name, expr).containsAll(used);
                }
                assertThat(selectors).as("%s names a series", expr).isPositive();
            }

            @SuppressWarnings("unchecked")
            Map<String, Object> spec = (Map<String, Object>) podMonitor.get("spec");
            @SuppressWarnings("unchecked")
            Map<String, Object> endpoint = ((List<Map<String, Object>>) spec.get("podMetricsEndpoints")).get(0);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> relabel = (List<Map<String, Object>>) endpoint.get("metricRelabelings");
            String keep = (String) relabel.get(0).get("regex");
            for (String name : keep.replaceAll("[()]", "").split("\\|")) {
                assertThat(have).as("the PodMonitor keeps %s", name).containsKey(name);
            }
            for (String name : have.keySet()) {
                for (String expr : exprs) {
                    if (expr.contains(name + "{")) {
                        assertThat(name).as("the PodMonitor keeps what the dashboard reads").matches(keep);
                    }
                }
            }
            assertThat(f.http((String) endpoint.get("path")).statusCode()).isEqualTo(200);

            @SuppressWarnings("unchecked")
            Map<String, Object> template = (Map<String, Object>) ((Map<String, Object>) daemonSet.get("spec"))
                    .get("template");
            @SuppressWarnings("unchecked")
            Map<String, Object> podLabels = (Map<String, Object>) ((Map<String, Object>) template.get("metadata"))
                    .get("labels");
            @SuppressWarnings("unchecked")
            Map<String, Object> selector = (Map<String, Object>) ((Map<String, Object>) spec.get("selector"))
                    .get("matchLabels");
            assertThat(podLabels).as("the PodMonitor selects the DaemonSet's pods").containsAllEntriesOf(selector);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> containers = (List<Map<String, Object>>) ((Map<String,
                    Object>) template.get("spec")).get("containers");
            List<Object> ports = new ArrayList<>();
            for (Map<String, Object> c : containers) {
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> cp = (List<Map<String, Object>>) c.getOrDefault("ports", List.of());
                cp.forEach(p -> ports.add(p.get("name")));
            }
            assertThat(ports).as("the port the PodMonitor scrapes").contains(endpoint.get("port"));
        }
    }
}
