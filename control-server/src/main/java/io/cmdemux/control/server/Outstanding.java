package io.cmdemux.control.server;

/**
 * The requests delivered to one consumer and not answered yet: trace ID → listener ID, at most
 * {@code max} of them, the oldest (lowest trace ID) forgotten first. Trace IDs are handed out in increasing order and
 * mostly delivered in that order, so they sit in a ring sorted by trace ID and are found by binary
 * search: per delivery an append to two arrays, where a LinkedHashMap made three objects.
 *
 * <p>An answered entry stays in the ring as a hole until it reaches the front or the ring is
 * compacted. A full ring is compacted when at most half of it is live, else it grows, up to twice
 * {@code max}; so compacting frees at least half the ring and costs O(1) per delivery over time. Not
 * thread-safe: its owner locks.
 */
final class Outstanding {
    private static final long HOLE = Long.MIN_VALUE;

    private final int max;
    private long[] trace;
    private long[] listener;
    /** The ring's first entry (physical index), its entries (holes included) and the live ones among them. */
    private int start;
    private int count;
    private int live;

    Outstanding(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be positive");
        }
        this.max = max;
        // Grown as needed: most consumers never have more than a few requests outstanding.
        this.trace = new long[Math.min(2 * max, 16)];
        this.listener = new long[trace.length];
    }

    int size() {
        return live;
    }

    boolean full() {
        return live >= max;
    }

    /**
     * Records a delivery. The server delivers nothing to a consumer that is {@link #full()}; should deliveries on
     * several threads race past that, the oldest (the lowest trace ID) beyond {@code max} is forgotten, so that
     * memory stays bounded.
     */
    void put(long traceId, long listenerId) {
        int found = find(traceId);
        if (found >= 0) {
            int p = physical(found);
            if (listener[p] == HOLE) {
                live++;
            }
            listener[p] = listenerId;
        } else {
            dropFrontHoles();
            if (count == trace.length) {
                compact(live <= trace.length / 2 ? trace.length : Math.min(2 * max, 2 * trace.length));
            }
            // Append, then move back past the (rare) later trace IDs another thread delivered first.
            int i = count++;
            while (i > 0 && trace[physical(i - 1)] > traceId) {
                trace[physical(i)] = trace[physical(i - 1)];
                listener[physical(i)] = listener[physical(i - 1)];
                i--;
            }
            trace[physical(i)] = traceId;
            listener[physical(i)] = listenerId;
            live++;
        }
        while (live > max) {
            dropFrontHoles();
            listener[start] = HOLE;
            live--;
        }
        dropFrontHoles();
    }

    /** Forgets an answered delivery; the listener it went to, or null when it is not outstanding. */
    Long remove(long traceId) {
        int found = find(traceId);
        if (found < 0) {
            return null;
        }
        int p = physical(found);
        long l = listener[p];
        if (l == HOLE) {
            return null;
        }
        listener[p] = HOLE;
        live--;
        dropFrontHoles();
        return l;
    }

    /** The logical index of {@code traceId}'s entry (hole or not), or -1. */
    private int find(long traceId) {
        int lo = 0;
        int hi = count - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long t = trace[physical(mid)];
            if (t < traceId) {
                lo = mid + 1;
            } else if (t > traceId) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    private int physical(int logical) {
        int p = start + logical;
        return p >= trace.length ? p - trace.length : p;
    }

    private void dropFrontHoles() {
        while (count > 0 && listener[start] == HOLE) {
            start = physical(1);
            count--;
        }
    }

    /** Moves the live entries to the front of arrays of {@code length}, in order. */
    private void compact(int length) {
        long[] t = new long[length];
        long[] l = new long[length];
        int n = 0;
        for (int i = 0; i < count; i++) {
            int p = physical(i);
            if (listener[p] != HOLE) {
                t[n] = trace[p];
                l[n++] = listener[p];
            }
        }
        trace = t;
        listener = l;
        start = 0;
        count = n;
    }
}
