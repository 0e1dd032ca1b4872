package io.cmdemux.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The daemon's life cycle: SIGTERM undoes everything within 5 s; a kill -9 leaves a rule that the next start replaces.
 */
class ServeRestartAsRootTest {

    @Test
    void sigtermRemovesTheRuleAndAKilledDaemonsRuleIsCleanedAtTheNextStart() throws Exception {
        try (ServeFixture f = new ServeFixture("tr")) {
            f.startServe();
            assertThat(f.nftTablePresent()).isTrue();
            long t0 = System.nanoTime();
            f.serve.process.destroy(); // SIGTERM
            assertThat(f.serve.process.waitFor(5, TimeUnit.SECONDS)).as("exits within 5 s of SIGTERM").isTrue();
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5000);
            assertThat(f.nftTablePresent()).as("SIGTERM removes the rule").isFalse();
            assertThat(f.socket).as("and the socket file").doesNotExist();

            f.startServe();
            f.serve.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS); // kill -9: no cleanup runs
            assertThat(f.nftTablePresent()).as("a killed daemon leaves its rule behind").isTrue();
            f.startServe();
            assertThat(f.nftTablePresent()).isTrue();
            // consumers come back after a restart and get their requests again
            f.listen(1, "0.0.0.0", 7471);
            assertThat(f.connect("10.88.0.11:7471", 3000, "--no-wait-rep").get("result").asText()).isEqualTo("mra");
            f.serve.process.destroy();
            f.serve.process.waitFor(5, TimeUnit.SECONDS);
            assertThat(f.nftTablePresent()).as("the restarted daemon removes the rule on SIGTERM").isFalse();
        }
    }
}
