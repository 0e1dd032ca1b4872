package io.cmdemux.control.server;

import io.cmdemux.namespaces.NetnsId;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * How much of the daemon's log one namespace's own requests may fill at info: the lines that a LISTEN, an UNLISTEN
 * or a consumer leaving with its listeners make go out at info up to {@link #BURST} at once and then one a
 * second; beyond that they go to debug, counted as {@code log.over-budget}, and the namespace's next line at info
 * says how many it left out. Without it a pod looping LISTEN/UNLISTEN wrote two lines per round trip into the
 * host's journal, whose rate limit (journald's default: 10,000 lines per 30 s per service) would then drop the
 * daemon's own lines with the pod's.
 */
final class LogBudget {
    static final int BURST = 100;
    static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ConcurrentHashMap<NetnsId, Bucket> buckets = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;
    private final ControlCounters counters;

    LogBudget(LongSupplier nanoClock, ControlCounters counters) {
        this.nanoClock = nanoClock;
        this.counters = counters;
    }

    /** As the generic cell rate algorithm keeps it: the time at which the namespace's budget is whole again. */
    private static final class Bucket {
        long fullAt;
        long leftOut;
    }

    /** {@code format} at info within the namespace's budget, else at debug. */
    void info(Logger log, NetnsId ns, String format, Object... args) {
        long leftOut = take(ns);
        if (leftOut < 0) {
            log.debug(format, args);
        } else if (leftOut == 0) {
            log.info(format, args);
        } else {
            log.info(format + " (" + leftOut + " earlier line(s) of this namespace went to debug: over its log budget)",
                    args);
        }
    }

    /**
     * @return -1 when the namespace has no line left; else how many it was refused since its last one (the line
     *     taken now carries that number)
     */
    long take(NetnsId ns) {
        if (ns == null) {
            return 0; // a peer not yet placed makes none of these lines
        }
        Bucket b = buckets.computeIfAbsent(ns, k -> new Bucket());
        long now = nanoClock.getAsLong();
        synchronized (b) {
            long start = b.fullAt == 0 || b.fullAt - now < 0 ? now : b.fullAt;
            if (start - now > (BURST - 1) * INTERVAL_NANOS) {
                b.leftOut++;
                counters.inc("log.over-budget");
                return -1;
            }
            b.fullAt = start + INTERVAL_NANOS;
            long n = b.leftOut;
            b.leftOut = 0;
            return n;
        }
    }

    /** A namespace that is gone: its budget goes with it. */
    void forget(NetnsId ns) {
        buckets.remove(ns);
    }
}
