package io.cmdemux.control.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The outstanding deliveries of a consumer against a plain model (a sorted map that forgets its
 * lowest trace IDs beyond the limit), through growth, holes, compaction and out-of-order deliveries.
 */
class OutstandingProperties {

    @Property(tries = 300)
    void agreesWithASortedMapThatForgetsTheOldest(@ForAll long seed, @ForAll @IntRange(min = 1, max = 70) int max,
            @ForAll @IntRange(min = 1, max = 3000) int operations,
                    @ForAll @IntRange(min = 0, max = 30) int outOfOrderPercent) {
        Random random = new Random(seed);
        Outstanding o = new Outstanding(max);
        TreeMap<Long, Long> model = new TreeMap<>();
        List<Long> delivered = new ArrayList<>();
        long next = 1;
        for (int i = 0; i < operations; i++) {
            int what = random.nextInt(100);
            if (what < 55 || delivered.isEmpty()) {
                // Mostly past the last one, leaving a gap of 3 to 6; sometimes one in the gap behind it
                // (another tap thread's delivery, recorded late); never one seen before.
                long trace;
                if (random.nextInt(100) < outOfOrderPercent && next > 4) {
                    trace = next - 2 - random.nextInt(3);
                } else {
                    trace = next + 3 + random.nextInt(4);
                    next = trace + 1;
                }
                if (delivered.contains(trace)) {
                    continue;
                }
                long listener = random.nextInt(5);
                o.put(trace, listener);
                model.put(trace, listener);
                while (model.size() > max) {
                    model.pollFirstEntry();
                }
                delivered.add(trace);
            } else if (what < 95) {
                // An answer: to a delivery, outstanding or not any more, or to a trace ID never delivered.
                long trace = random.nextInt(10) == 0 ? next + 100 : delivered.get(random.nextInt(delivered.size()));
                assertThat(o.remove(trace)).as("remove %d", trace).isEqualTo(model.remove(trace));
            } else {
                // The same delivery recorded again keeps its place and takes the new listener.
                Map.Entry<Long, Long> e = model.isEmpty() ? null : model.firstEntry();
                if (e != null) {
                    o.put(e.getKey(), 99);
                    model.put(e.getKey(), 99L);
                }
            }
            assertThat(o.size()).isEqualTo(model.size());
        }
        for (long trace : delivered) {
            assertThat(o.remove(trace)).as("finally %d", trace).isEqualTo(model.remove(trace));
        }
        assertThat(o.size()).isZero();
    }
}
