package io.cmdemux.pathrecord;

import java.util.concurrent.atomic.AtomicLongArray;

/** Latencies in power-of-two nanosecond buckets: lock-free to record, percentiles to within a factor of two. */
public final class LatencyHistogram {
    private final AtomicLongArray buckets = new AtomicLongArray(64);

    public void record(long nanos) {
        int b = 63 - Long.numberOfLeadingZeros(Math.max(1, nanos));
        buckets.incrementAndGet(b);
    }

    public long count() {
        long n = 0;
        for (int i = 0; i < 64; i++) {
            n += buckets.get(i);
        }
        return n;
    }

    /** The upper bound of the bucket holding the p-th percentile (0 < p ≤ 100), in nanoseconds; 0 when empty. */
    public long percentileNanos(double p) {
        long n = count();
        if (n == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(n * p / 100.0);
        long seen = 0;
        for (int i = 0; i < 64; i++) {
            seen += buckets.get(i);
            if (seen >= rank) {
                return i >= 62 ? Long.MAX_VALUE : (2L << i) - 1;
            }
        }
        return Long.MAX_VALUE;
    }
}
