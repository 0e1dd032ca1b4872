package io.cmdemux.it;

import static io.cmdemux.namespaces.testkit.Host.sh;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A consumer that stops reading: once over a megabyte is queued for it, its requests are dropped
 * without a REJ, as ucma drops a request its listener's backlog has no room for, so that the peer
 * retries; nothing queued before is lost, and it gets everything once it reads again. Needs root.
 */
class ConsumerBacklogAsRootTest {
    private static final String BACKLOG = "drops_total{reason=\"consumer-backlog\"}";
    private static ServeFixture f;

    @BeforeAll
    static void start() throws Exception {
        f = new ServeFixture("cb");
        f.startServe();
    }

    @AfterAll
    static void stop() {
        if (f != null) {
            f.close();
        }
    }

    @Test
    void requestsForAConsumerThatDoesNotReadAreDroppedWithoutARej() throws Exception {
        Proc stalled = f.listen(2, "0.0.0.0", 7472);
        long pid = stalled.process.pid();
        sh("kill", "-STOP", Long.toString(pid));
        int sent = 0;
        try {
            // Some 650 bytes a delivery: a megabyte, and the socket buffers before it, are a few thousand.
            while (f.metric(BACKLOG) == 0 && sent < 40_000) {
                List<byte[]> burst = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    burst.add(f.req(0x6b000000 + sent++, "10.88.0.12", 7472));
                }
                f.inject(burst);
                Thread.sleep(300);
            }
            assertThat(f.metric(BACKLOG)).as("drops for the consumer's backlog after %d REQs", sent).isPositive();
            assertThat(f.metric("frames_sent_total{kind=\"rej\"}"))
                    .as("no REJ for them: the peer is left to retry").isZero();
        } finally {
            sh("kill", "-CONT", Long.toString(pid));
        }
        // The kernel's drops at a full tap socket (none expected) are read from it once a second.
        String overrun = "drops_total{reason=\"tap-overrun\"}";
        long counted = System.currentTimeMillis() + 3_000;
        double delivered = f.metric("decisions_total{outcome=\"deliver\",reason=\"\"}");
        while (delivered + f.metric(BACKLOG) + f.metric(overrun) != sent && System.currentTimeMillis() < counted) {
            Thread.sleep(100);
            delivered = f.metric("decisions_total{outcome=\"deliver\",reason=\"\"}");
        }
        assertThat(delivered + f.metric(BACKLOG) + f.metric(overrun)).as("every REQ delivered or dropped, and counted")
                .isEqualTo(sent);
        long deadline = System.currentTimeMillis() + 20_000;
        while (ServeFixture.reqs(stalled).size() < delivered && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        assertThat(ServeFixture.reqs(stalled)).as("what was queued reaches the consumer once it reads again")
                .hasSize((int) delivered);
    }
}
