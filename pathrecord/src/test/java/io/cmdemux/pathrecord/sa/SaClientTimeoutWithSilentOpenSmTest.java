package io.cmdemux.pathrecord.sa;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.pathrecord.testkit.OpenSmFabric;
import org.junit.jupiter.api.Test;

/**
 * With OpenSM stopped the ports keep their SM LID, so queries go out and nobody answers: the client
 * must give up by its own deadline (timeout × (1 + retries) + 50 ms), not hang. Its own fabric,
 * because stopping OpenSM leaves its ibsim slot taken.
 */
class SaClientTimeoutWithSilentOpenSmTest {

    @Test
    void aSilentSaFailsTheQueryByTheDeadlineInsteadOfHanging() {
        try (OpenSmFabric fabric = OpenSmFabric.start(2, 0)) {
            fabric.stopOpenSm();
            long t0 = System.nanoTime();
            Host.Result r = fabric.java("H2", 60, SaProbe.class.getName(), OpenSmFabric.DEVICE, "1", "--timeout", "200",
                    "--retries", "1", fabric.gid("H2") + "-" + fabric.gid("H1"));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(r.exit()).as(r.stdout() + r.stderr()).isZero();
            assertThat(r.stdout())
                    .contains("err sgid=" + fabric.gid("H2"))
                    .containsPattern("msg=(no_SA_answer_within_450_ms|the_SA_did_not_answer)");
            // JVM start-up included; the query itself may take at most 450 ms.
            assertThat(ms).isLessThan(15_000);
        }
    }
}
