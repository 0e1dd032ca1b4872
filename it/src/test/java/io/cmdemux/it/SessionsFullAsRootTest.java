package io.cmdemux.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A daemon whose session table is full drops new REQs without a word, as ucma does when its
 * listener has no room (cma_ib_req_handler fails with -ENOMEM and cm_destroy_id sends no REJ), so
 * that the peer's retransmission is delivered once a connection ends. Needs root and nftables.
 */
class SessionsFullAsRootTest {
    private static final String FULL = "drops_total{reason=\"sessions-full\"}";
    private static ServeFixture f;

    @BeforeAll
    static void start() throws Exception {
        f = new ServeFixture("sf");
        f.startServe("--max-sessions", "1", "--time-wait", "100");
    }

    @AfterAll
    static void stop() {
        if (f != null) {
            f.close();
        }
    }

    @Test
    void aReqBeyondTheLimitIsDroppedSilentlyAndItsRetryIsDeliveredOnceThereIsRoom() throws Exception {
        Proc acceptor = f.listen(1, "0.0.0.0", 7471, "--accept");
        // The first connection holds the only session for 6 s, then disconnects.
        Proc holder = new Proc(Binaries.cmdemux(f.cli, "connect", "--dst", "10.88.0.11:7471", "--timeout", "5000",
                "--hold", "6000", "--json"));
        long deadline = System.currentTimeMillis() + 10_000;
        while (f.metric("sessions") != 1 && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        assertThat(f.metric("sessions")).as("the first connection's session").isEqualTo(1);

        JsonNode refused = f.connect("10.88.0.11:7471", 1200, "--retry", "300");
        assertThat(refused.get("result").asText()).as("no MRA and no REJ: the peer is left to retry")
                .isEqualTo("timeout");
        assertThat(refused.get("reqsSent").asInt()).isGreaterThanOrEqualTo(2);
        assertThat(f.metric(FULL)).as("every send of the second REQ was dropped for want of a session")
                .isEqualTo(refused.get("reqsSent").asDouble());
        assertThat(ServeFixture.reqs(acceptor)).as("the consumer saw only the first REQ").hasSize(1);

        // A third peer keeps retrying while the table is full; once the first connection is over, a
        // retransmission finds room and is delivered.
        double before = f.metric(FULL);
        Proc waiting = new Proc(Binaries.cmdemux(f.cli, "connect", "--dst", "10.88.0.11:7471", "--timeout", "20000",
                "--retry", "300", "--json"));
        deadline = System.currentTimeMillis() + 10_000;
        while (f.metric(FULL) == before && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        assertThat(f.metric(FULL)).as("the third REQ was dropped too while the table was full").isGreaterThan(before);
        assertThat(holder.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(waiting.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        JsonNode first = ServeFixture.JSON.readTree(holder.out.get(holder.out.size() - 1));
        assertThat(first.get("result").asText()).isEqualTo("rep");
        assertThat(first.get("disconnect").asText()).isEqualTo("drep");
        JsonNode retried = ServeFixture.JSON.readTree(waiting.out.get(waiting.out.size() - 1));
        assertThat(retried.get("result").asText()).as("a retransmission of the third REQ was delivered and accepted")
                .isEqualTo("rep");
        assertThat(retried.get("reqsSent").asInt()).isGreaterThanOrEqualTo(2);
        long comm = Long.parseLong(retried.get("localCommId").asText().substring(2), 16);
        assertThat(ServeFixture.reqs(acceptor)).extracting(j -> j.get("localCommId").asLong()).hasSize(2)
                .contains(comm);
        holder.close();
        waiting.close();
    }
}
