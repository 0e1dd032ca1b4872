package io.cmdemux.dataplane.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.ResolverMode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The ring of last decisions: bounded, newest first, and consistent while tap threads write and the HTTP side reads.
 */
class DecisionLogTest {
    private static Decision drop(String why) {
        return new Decision(Decision.Outcome.DROP, null, why, Decision.Drop.NO_GID, null, null, null,
                ResolverMode.KERNEL, List.of(), 1);
    }

    @Test
    void keepsTheLastCapacityEntriesNewestFirst() {
        DecisionLog log = new DecisionLog(100);
        for (int i = 1; i <= 250; i++) {
            log.add(i, i, "rxe0", null, drop("d" + i), null);
        }
        List<DecisionLog.Entry> r = log.recent();
        assertThat(r).hasSize(100);
        assertThat(r.get(0).seq()).isEqualTo(250);
        assertThat(r.get(99).seq()).isEqualTo(151);
        assertThat(r.get(0).decision().dropReason()).isEqualTo("d250");
        assertThat(log.get(151)).isPresent();
        assertThat(log.get(150)).isEmpty();
        assertThat(log.get(251)).isEmpty();
        assertThat(log.total()).isEqualTo(250);
    }

    @Test
    void fewerThanCapacityAreAllThere() {
        DecisionLog log = new DecisionLog(100);
        log.add(7, 0, "rxe0", null, drop("only"), null);
        assertThat(log.recent()).extracting(DecisionLog.Entry::traceId).containsExactly(7L);
    }

    @Test
    void writersOnFourThreadsAndAReaderNeverSeeAnEntryOutOfPlace() throws Exception {
        DecisionLog log = new DecisionLog(100);
        int perThread = 50_000;
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> problem = new AtomicReference<>();
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    // the decision says which seq it should have been stored under, so the reader can check
                    long seq = log.add(id, i, "rxe" + id, null, drop("t" + id), null);
                    if (seq <= 0) {
                        problem.set("non-positive seq " + seq);
                    }
                }
            });
            writers.add(w);
            w.start();
        }
        Thread reader = new Thread(() -> {
            while (!done.get()) {
                List<DecisionLog.Entry> r = log.recent();
                Set<Long> seen = new HashSet<>();
                long prev = Long.MAX_VALUE;
                for (DecisionLog.Entry e : r) {
                    if (e.seq() >= prev || !seen.add(e.seq())) {
                        problem.set("entries out of order or repeated: " + e.seq() + " after " + prev);
                    }
                    if (!e.decision().dropReason().equals("t" + e.traceId())
                            || !e.device().equals("rxe" + e.traceId())) {
                        problem.set("an entry mixed two writes: " + e);
                    }
                    prev = e.seq();
                }
                if (r.size() > 100) {
                    problem.set("more than capacity: " + r.size());
                }
            }
        });
        reader.start();
        start.countDown();
        for (Thread w : writers) {
            w.join();
        }
        done.set(true);
        reader.join();
        assertThat(problem.get()).isNull();
        assertThat(log.total()).isEqualTo(4L * perThread);
        List<DecisionLog.Entry> r = log.recent();
        assertThat(r).hasSize(100);
        assertThat(r.get(0).seq()).isEqualTo(4L * perThread);
        assertThat(r.get(99).seq()).isEqualTo(4L * perThread - 99);
    }
}
