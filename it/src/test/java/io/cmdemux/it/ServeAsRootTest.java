package io.cmdemux.it;

import static io.cmdemux.namespaces.testkit.Host.sh;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * `cmdemux serve` with real listeners and a real active side, as the demo runs them: each request
 * reaches exactly the right consumer, the REJ reasons follow the kernel's rules, bad frames are
 * counted without harming good ones, and churn leaves no delivery to a namespace that no longer
 * owns the address. Needs root.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServeAsRootTest {
    private static ServeFixture f;
    private static Proc pod1;
    private static Proc pod2;

    @BeforeAll
    static void start() throws Exception {
        f = new ServeFixture("ts");
        f.startServe();
        pod1 = f.listen(1, "0.0.0.0", 7471);
        pod2 = f.listen(2, "10.88.0.12", 7471);
    }

    @AfterAll
    static void stop() {
        if (f != null) {
            f.close();
        }
    }

    @Test
    @Order(1)
    void theDemoScenarioReachesExactlyTheRightConsumers() throws Exception {
        assertThat(f.nftTablePresent()).as("the steal rule is installed").isTrue();
        JsonNode toPod1 = f.connect("10.88.0.11:7471", 3000, "--no-wait-rep");
        JsonNode toPod2 = f.connect("10.88.0.12:7471", 3000, "--no-wait-rep");
        JsonNode toPod3 = f.connect("10.88.0.13:7471", 3000, "--no-wait-rep");
        JsonNode noPort = f.connect("10.88.0.11:9999", 3000);
        JsonNode vethPod = f.connect("10.88.0.14:7471", 1500);
        assertThat(toPod1.get("result").asText()).isEqualTo("mra");
        assertThat(toPod2.get("result").asText()).isEqualTo("mra");
        assertThat(toPod3.get("result").asText()).isEqualTo("rej");
        assertThat(toPod3.get("rejectReason").asInt()).as("a listener exists, but not in pod3: REJ 28").isEqualTo(28);
        assertThat(noPort.get("rejectReason").asInt()).as("nobody listens on 9999 anywhere: REJ 8").isEqualTo(8);
        assertThat(vethPod.get("result").asText()).as("no GID for a veth pod: the kernel stays silent")
                .isEqualTo("timeout");
        Thread.sleep(300);
        List<JsonNode> got1 = ServeFixture.reqs(pod1);
        List<JsonNode> got2 = ServeFixture.reqs(pod2);
        assertThat(got1).hasSize(1);
        assertThat(got2).hasSize(1);
        assertThat(got1.get(0).at("/local/ip").asText()).isEqualTo("10.88.0.11");
        assertThat(got2.get(0).at("/local/ip").asText()).isEqualTo("10.88.0.12");
        assertThat(Long.toHexString(got1.get(0).get("localCommId").asLong()))
                .isEqualTo(toPod1.get("localCommId").asText().substring(2).replaceFirst("^0+", ""));
        assertThat(f.metric("decisions_total{outcome=\"deliver\",reason=\"\"}")).isEqualTo(2);
        assertThat(f.metric("drops_total{reason=\"no-gid\"}")).isGreaterThanOrEqualTo(1);
    }

    @Test
    @Order(2)
    void badFramesAreCountedAndDoNotBlockGoodOnes() throws Exception {
        double malformed = f.metric("frames_total{result=\"malformed\"}");
        double badIcrc = f.metric("frames_total{result=\"bad-icrc\"}");
        byte[] good = f.req(0x5a5a0001, "10.88.0.11", 7471);
        byte[] wrongIcrc = good.clone();
        wrongIcrc[wrongIcrc.length - 1] ^= 0x55;
        byte[] truncated = java.util.Arrays.copyOf(good, 100);
        byte[] shortMad = java.util.Arrays.copyOf(good, good.length - 40);
        f.inject(List.of(wrongIcrc, truncated, shortMad, truncated));
        JsonNode after = f.connect("10.88.0.11:7471", 3000, "--no-wait-rep");
        assertThat(after.get("result").asText()).isEqualTo("mra");
        assertThat(f.metric("frames_total{result=\"bad-icrc\"}") - badIcrc).isEqualTo(1);
        assertThat(f.metric("frames_total{result=\"malformed\"}") - malformed).isEqualTo(3);
        assertThat(f.serve.process.isAlive()).isTrue();
    }

    @Test
    @Order(3)
    void aRetransmittedReqReachesTheConsumerOnce() throws Exception {
        int before = ServeFixture.reqs(pod1).size();
        byte[] r = f.req(0x5a5a0002, "10.88.0.11", 7471);
        f.inject(List.of(r, r, r));
        Thread.sleep(500);
        List<JsonNode> got = ServeFixture.reqs(pod1);
        assertThat(got.size() - before).isEqualTo(1);
        assertThat(f.metric("duplicate_requests_total")).isGreaterThanOrEqualTo(2);
    }

    @Test
    @Order(4)
    void churnNeverDeliversToANamespaceThatNoLongerOwnsTheAddress() throws Exception {
        long fdsBefore = fds();
        // a consumer that goes away while requests keep coming
        Proc pod3 = f.listen(3, "0.0.0.0", 7471);
        assertThat(f.connect("10.88.0.13:7471", 3000, "--no-wait-rep").get("result").asText()).isEqualTo("mra");
        pod3.close();
        Thread.sleep(300);
        assertThat(f.connect("10.88.0.13:7471", 3000, "--no-wait-rep").get("rejectReason").asInt())
                .as("its listener left with it").isEqualTo(28);
        // an address moves from pod1 to pod3: requests follow it, pod1 gets none
        int pod1Before = ServeFixture.reqs(pod1).size();
        Proc pod3again = f.listen(3, "0.0.0.0", 7471);
        sh("ip", "-n", f.pods[1], "addr", "del", "10.88.0.11/24", "dev", "net1");
        sh("ip", "-n", f.pods[3], "addr", "add", "10.88.0.11/24", "dev", "net1");
        Thread.sleep(300);
        JsonNode moved = f.connect("10.88.0.11:7471", 3000, "--no-wait-rep");
        assertThat(moved.get("result").asText()).isEqualTo("mra");
        Thread.sleep(200);
        assertThat(ServeFixture.reqs(pod1).size()).isEqualTo(pod1Before);
        assertThat(ServeFixture.reqs(pod3again)).extracting(j -> j.at("/local/ip").asText()).contains("10.88.0.11");
        // a pod's namespace is deleted (its process gone first: a namespace lives while anything runs in it):
        // the macvlan dies with it, its GIDs go, and nothing is delivered for its address
        pod2.close();
        sh("ip", "netns", "del", f.pods[2]);
        f.ns.forget(f.pods[2]);
        Thread.sleep(1500);
        JsonNode gone = f.connect("10.88.0.12:7471", 1500);
        assertThat(gone.get("result").asText()).as("no GID is left for the address: silence").isEqualTo("timeout");
        for (int i = 0; i < 30; i++) {
            f.connect("10.88.0.11:7471", 2000, "--no-wait-rep");
        }
        pod3again.close();
        Thread.sleep(500);
        long fdsAfter = fds();
        assertThat(fdsAfter).as("the daemon's fd count stays flat (before %d)", fdsBefore)
                .isLessThanOrEqualTo(fdsBefore + 4);
    }

    private static long fds() throws Exception {
        try (var s = Files.list(Path.of("/proc", Long.toString(f.serve.process.pid()), "fd"))) {
            return s.count();
        }
    }
}
