package io.cmdemux.daemon;

import io.cmdemux.observer.KernelOutcome;
import io.cmdemux.observer.Observation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The observer's counters (issue 18): {@code kernel_cm_requests_total{device,port,namespace,pod,outcome,reason}}
 * for every request the kernel received, {@code kernel_prediction_disagreements_total} for those where cmdemux's
 * kernel mode decided otherwise; and whether a disagreement may save a snapshot now (at most one a minute, so
 * that a misconfiguration that makes every request disagree cannot fill the disk).
 */
public final class KernelDecisionMetrics {
    static final Duration SNAPSHOT_INTERVAL = Duration.ofMinutes(1);

    private final MeterRegistry registry;
    private final Counter disagreements;
    private final Clock clock;
    private Instant lastSnapshot;

    public KernelDecisionMetrics(MeterRegistry registry, Clock clock) {
        this.registry = registry;
        this.clock = clock;
        this.disagreements = Counter.builder("kernel_prediction_disagreements_total")
                .description("requests where cmdemux's kernel mode decided otherwise than the kernel")
                .register(registry);
    }

    /**
     * Counts one request.
     *
     * @param agree whether cmdemux's prediction matched the kernel (true when there was nothing to compare)
     * @return true when this disagreement should save a snapshot file
     */
    public synchronized boolean record(Observation ob, List<String> pods, boolean agree) {
        KernelOutcome o = ob.request().outcome();
        String outcome = o instanceof KernelOutcome.Delivered ? "deliver"
                : o instanceof KernelOutcome.Rejected ? "reject" : "drop";
        String reason = o instanceof KernelOutcome.Rejected r ? Integer.toString(r.reason()) : "";
        Counter.builder("kernel_cm_requests_total").description("CM REQs and SIDR REQs the kernel received, by outcome")
                .tag("device", ob.request().device() == null ? "" : ob.request().device())
                .tag("port", Integer.toString(ob.request().port()))
                .tag("namespace", ob.namespace() == null ? "" : ob.namespace().displayName())
                .tag("pod", String.join(",", pods)).tag("outcome", outcome).tag("reason", reason)
                .register(registry).increment();
        if (agree) {
            return false;
        }
        disagreements.increment();
        Instant now = clock.instant();
        if (lastSnapshot != null && Duration.between(lastSnapshot, now).compareTo(SNAPSHOT_INTERVAL) < 0) {
            return false;
        }
        lastSnapshot = now;
        return true;
    }
}
