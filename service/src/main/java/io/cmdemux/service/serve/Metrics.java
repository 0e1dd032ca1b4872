package io.cmdemux.service.serve;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** The daemon's meters, named as the issue lists them, in one Prometheus registry. */
public final class Metrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();
    private final Timer tapToConsumer;

    public Metrics() {
        tapToConsumer = Timer.builder("tap_to_consumer")
                .description("from the frame leaving the tap to the request handed to its consumer")
                .publishPercentiles(0.5, 0.99).publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(1000)).maximumExpectedValue(Duration.ofSeconds(1))
                .register(registry);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    private Counter counter(String name, String... tags) {
        String key = name + String.join(",", tags);
        return counters.computeIfAbsent(key, k -> Counter.builder(name).tags(tags).register(registry));
    }

    public void frame(String result) {
        counter("frames", "result", result).increment();
    }

    public void decision(String outcome, String reason) {
        counter("decisions", "outcome", outcome, "reason", reason).increment();
    }

    public void drop(String reason) {
        counter("drops", "reason", reason).increment();
    }

    public void sent(String kind) {
        counter("frames_sent", "kind", kind).increment();
    }

    public void consumerGone(int sessions) {
        counter("sessions_of_gone_consumers").increment(sessions);
    }

    public void duplicate() {
        counter("duplicate_requests").increment();
    }

    public void delivered(long tapNanos) {
        tapToConsumer.record(System.nanoTime() - tapNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    public Timer tapToConsumer() {
        return tapToConsumer;
    }

    public void gauge(String name, Supplier<Number> value) {
        Gauge.builder(name, value).register(registry);
    }

    public double count(String name, String... tags) {
        Counter c = counters.get(name + String.join(",", tags));
        return c == null ? 0 : c.count();
    }

    /** One meter's value, for people (the status page): counters, gauges, and each timer's count. */
    public record Reading(String name, String tags, double value) {}

    /** Every counter, gauge and timer count, sorted by name and tags. */
    public java.util.List<Reading> readings() {
        java.util.List<Reading> out = new java.util.ArrayList<>();
        for (io.micrometer.core.instrument.Meter m : registry.getMeters()) {
            String tags = String.join(",", m.getId().getTags().stream().map(t -> t.getKey() + "=" + t.getValue()).toList());
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
