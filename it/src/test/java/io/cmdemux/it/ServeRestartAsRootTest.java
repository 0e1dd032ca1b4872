package io.cmdemux.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The daemon's life cycle: SIGTERM undoes everything within 5 s; a kill -9 leaves a rule that the next start replaces.
 */
class ServeRestartAsRootTest {

    /**
     * A second daemon on the same control socket is refused; one with --standby waits, and when the serving one is
     * killed it takes over: its rule, its socket, its HTTP port, and the consumers, which come back by themselves.
     */
    @Test
    void aSecondDaemonIsRefusedAndAStandbyTakesOverFromAKilledOne() throws Exception {
        try (ServeFixture f = new ServeFixture("sb")) {
            f.startServe();
            Proc listener = f.listen(1, "0.0.0.0", 7471);
            long serving = f.serve.process.pid();
            Proc.Run second = Proc.run(f.serveCommand(), 60_000);
            assertThat(second.exit()).as("a second daemon exits: " + second.err()).isNotZero();
            assertThat(second.err()).contains("pid " + serving).contains("--standby");

            try (Proc standby = new Proc(f.serveCommand("--standby"))) {
                assertThat(standby.await(l -> l.contains("standby: cmdemux serve (pid " + serving + ")"), 30_000))
                        .as("the standby says whom it waits for: " + standby.err).isTrue();
                Thread.sleep(500);
                assertThat(standby.process.isAlive()).isTrue();
                assertThat(f.connect("10.88.0.11:7471", 3000, "--no-wait-rep").get("result").asText())
                        .as("the first daemon still serves").isEqualTo("mra");

                f.serve.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS); // kill -9
                long deadline = System.currentTimeMillis() + 20_000;
                while (f.http("/readyz").statusCode() != 200 && System.currentTimeMillis() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(f.http("/readyz").statusCode()).as("the standby is ready on the same port: " + standby.err)
                        .isEqualTo(200);
                assertThat(standby.err).anyMatch(l -> l.contains("taking over"));
                assertThat(listener.await(l -> l.contains("registered again"), 20_000))
                        .as("the consumer came back by itself: " + listener.err).isTrue();
                assertThat(f.connect("10.88.0.11:7471", 3000, "--no-wait-rep").get("result").asText())
                        .as("and gets its requests from the new daemon").isEqualTo("mra");

                standby.process.destroy();
                assertThat(standby.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
                assertThat(f.nftTablePresent()).as("the daemon that took over removes the rule on SIGTERM").isFalse();
            }
        }
    }

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
