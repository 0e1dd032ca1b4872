package io.cmdemux.dataplane.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The daemon's meters, named as the issue lists them, in one Prometheus registry. Counters are
 * registered on first use and then found by their label value alone (one map lookup of a string
 * whose hash is cached), so the tap thread builds no meter id or key string per frame.
 */
public final class Metrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Family frames = new Family("frames", "result");
    private final Family drops = new Family("drops", "reason");
    private final Family sent = new Family("frames_sent", "kind");
    /** decisions{outcome, reason}: one family per outcome, keyed by reason. */
    private final ConcurrentHashMap<String, Family> decisions = new ConcurrentHashMap<>();
    private final Counter sessionsOfGoneConsumers;
    private final Counter duplicateRequests;
    private final Counter topologyBehind;
    private final Timer tapToConsumer;

    /** The counters of one name and one label, by label value. */
    private final class Family {
        private final String name;
        private final String label;
        private final String[] fixedTags;
        private final ConcurrentHashMap<String, Counter> byValue = new ConcurrentHashMap<>();

        Family(String name, String label, String... fixedTags) {
            this.name = name;
            this.label = label;
            this.fixedTags = fixedTags;
        }

        Counter get(String value) {
            Counter c = byValue.get(value);
            return c != null ? c : byValue.computeIfAbsent(value,
                    v -> Counter.builder(name).tags(fixedTags).tag(label, v).register(registry));
        }
    }

    public Metrics() {
        // Buckets only: Prometheus takes quantiles from them (histogram_quantile). Quantiles made here
        // would cost an HdrHistogram record per request on the tap thread, for a number nobody scrapes.
        tapToConsumer = Timer.builder("tap_to_consumer")
                .description("from the frame leaving the tap to the request handed to its consumer")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(1000)).maximumExpectedValue(Duration.ofSeconds(1))
                .register(registry);
        sessionsOfGoneConsumers = Counter.builder("sessions_of_gone_consumers").register(registry);
        duplicateRequests = Counter.builder("duplicate_requests").register(registry);
        topologyBehind = Counter.builder("topology_behind_batches")
                .description("tap batches decided on the topology as it was, because it could not catch up with"
                        + " the kernel's notifications first (a full re-read under way)")
                .register(registry);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public void frame(String result) {
        frames.get(result).increment();
    }

    public void decision(String outcome, String reason) {
        Family f = decisions.get(outcome);
        if (f == null) {
            f = decisions.computeIfAbsent(outcome, o -> new Family("decisions", "reason", "outcome", o));
        }
        f.get(reason).increment();
    }

    public void drop(String reason) {
        drops.get(reason).increment();
    }

    /** {@code n} drops at once, e.g. the tap socket's tp_drops since the last read. */
    public void drop(String reason, long n) {
        drops.get(reason).increment(n);
    }

    public void sent(String kind) {
        sent.get(kind).increment();
    }

    public void sent(String kind, long n) {
        sent.get(kind).increment(n);
    }

    public void consumerGone(int sessions) {
        sessionsOfGoneConsumers.increment(sessions);
    }

    public void duplicate() {
        duplicateRequests.increment();
    }

    public void topologyBehind() {
        topologyBehind.increment();
    }

    public void delivered(long tapNanos) {
        tapToConsumer.record(System.nanoTime() - tapNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    public void gauge(String name, Supplier<Number> value) {
        Gauge.builder(name, value).register(registry);
    }

    /** A counter's value by its name and label pairs, 0 if it was never incremented; for tests. */
    public double count(String name, String... tags) {
        Counter c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    /** One meter's value, for people (the status page): counters, gauges, and each timer's count. */
    public record Reading(String name, String tags, double value) {}

    /** Every counter, gauge and timer count, sorted by name and tags. */
    public java.util.List<Reading> readings() {
        java.util.List<Reading> out = new java.util.ArrayList<>();
        for (io.micrometer.core.instrument.Meter m : registry.getMeters()) {
            String tags = String.join(",", m.getId().getTags().stream()
                    .map(t -> t.getKey() + "=" + t.getValue()).toList());
            if (m instanceof Counter c) {
                out.add(new Reading(m.getId().getName(), tags, c.count()));
            } else if (m instanceof Gauge g) {
                out.add(new Reading(m.getId().getName(), tags, g.value()));
            } else if (m instanceof Timer t) {
                out.add(new Reading(m.getId().getName() + " (count)", tags, t.count()));
            }
        }
        out.sort(java.util.Comparator.comparing(Reading::name).thenComparing(Reading::tags));
        return out;
    }

    public String scrape() {
        return registry.scrape();
    }
}
