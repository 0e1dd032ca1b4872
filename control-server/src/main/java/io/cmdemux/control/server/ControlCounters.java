package io.cmdemux.control.server;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counted reasons: why connections were closed, which requests were refused with which errno,
 * what happened to deliveries and REJECTs. Names are "area.reason", e.g. "closed.too-large",
 * "refused.EADDRINUSE", "deliver.consumer-gone"; metrics export them as labels.
 */
public final class ControlCounters {
    private final ConcurrentHashMap<String, LongAdder> counts = new ConcurrentHashMap<>();

    void inc(String name) {
        LongAdder a = counts.get(name);
        (a != null ? a : counts.computeIfAbsent(name, k -> new LongAdder())).increment();
    }

    public long get(String name) {
        LongAdder a = counts.get(name);
        return a == null ? 0 : a.sum();
    }

    /** Every counter so far, sorted by name. */
    public Map<String, Long> snapshot() {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
