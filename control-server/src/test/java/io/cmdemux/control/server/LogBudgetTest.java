package io.cmdemux.control.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.NetnsId;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogBudgetTest {
    private static final NetnsId A = new NetnsId(4, 4026531840L);
    private static final NetnsId B = new NetnsId(4, 4026531841L);

    private final AtomicLong now = new AtomicLong(TimeUnit.DAYS.toNanos(3));
    private final ControlCounters counters = new ControlCounters();
    private final LogBudget budget = new LogBudget(now::get, counters);

    private int lines(NetnsId ns, int asked) {
        int n = 0;
        for (int i = 0; i < asked; i++) {
            if (budget.take(ns) >= 0) {
                n++;
            }
        }
        return n;
    }

    @Test
    void aBurstGoesOutThenOneASecondAndTheNextLineSaysHowManyWereLeftOut() {
        assertThat(lines(A, 250)).isEqualTo(LogBudget.BURST);
        assertThat(counters.get("log.over-budget")).isEqualTo(250 - LogBudget.BURST);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
        assertThat(budget.take(A)).as("before a second has passed").isEqualTo(-1);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(budget.take(A)).as("the line a second later carries the count").isEqualTo(250 - LogBudget.BURST + 1);
        assertThat(budget.take(A)).isEqualTo(-1);
        now.addAndGet(TimeUnit.SECONDS.toNanos(10));
        assertThat(lines(A, 50)).as("ten seconds give ten lines").isEqualTo(10);
    }

    @Test
    void aQuietNamespaceGetsItsWholeBurstBackAndNoMore() {
        lines(A, LogBudget.BURST);
        now.addAndGet(TimeUnit.HOURS.toNanos(1));
        assertThat(lines(A, 3 * LogBudget.BURST)).isEqualTo(LogBudget.BURST);
    }

    @Test
    void eachNamespaceHasABudgetOfItsOwnAndAGoneOneLosesItsDebt() {
        lines(A, 3 * LogBudget.BURST);
        assertThat(lines(B, LogBudget.BURST)).isEqualTo(LogBudget.BURST);
        assertThat(budget.take(null)).as("a peer not yet placed").isZero();
        budget.forget(A);
        assertThat(lines(A, LogBudget.BURST)).isEqualTo(LogBudget.BURST);
    }
}
