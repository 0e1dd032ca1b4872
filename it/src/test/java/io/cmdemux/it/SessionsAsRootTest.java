package io.cmdemux.it;

import static io.cmdemux.namespaces.testkit.Host.sh;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.netdev.PcapReader;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Whole connections through the daemon (issue 7): REQ → REP → RTU, DREQ → DREP, with the
 * kernel's retransmissions under loss, and a consumer dying mid-handshake. Frames the daemon
 * sends are checked by tshark. Needs root, nftables and tshark.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SessionsAsRootTest {
    private static ServeFixture f;
    private static Proc acceptor;

    @BeforeAll
    static void start() throws Exception {
        Host.requireCommand("tshark", "tshark");
        f = new ServeFixture("tc", true);
        f.startServe("--time-wait", "300", "--max-cm-timeout", "300");
        acceptor = f.listen(1, "0.0.0.0", 7471, "--accept");
    }

    @AfterAll
    static void stop() {
        if (f != null) {
            f.close();
        }
    }

    private static List<JsonNode> events(Proc p, String event) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String l : p.out) {
            if (l.startsWith("{")) {
                JsonNode j = ServeFixture.JSON.readTree(l);
                if (event.equals(j.path("event").asText())) {
                    out.add(j);
                }
            }
        }
        return out;
    }

    private static void awaitSessions(double n) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (f.metric("sessions") != n && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        assertThat(f.metric("sessions")).as("sessions in the daemon's table").isEqualTo(n);
    }

    @Test
    @Order(1)
    void aFullHandshakeAndDisconnectReachTheConsumerAndThePeerAndTsharkReadsEveryFrame() throws Exception {
        Path pcap = f.dir.resolve("uplink.pcapng");
        Proc capture = new Proc(List.of("tshark", "-i", f.up, "-f", "udp port 4791", "-w", pcap.toString()));
        assertThat(capture.await(l -> l.contains("Capturing on"), 20_000))
                .as("tshark started: %s", capture.err).isTrue();
        JsonNode c = f.connect("10.88.0.11:7471", 5000, "--hold", "300");
        Thread.sleep(700);
        capture.close();
        assertThat(c.get("result").asText()).isEqualTo("rep");
        assertThat(c.get("disconnect").asText()).as("our DREQ was answered").isEqualTo("drep");
        assertThat(c.get("stepsMicros").fieldNames()).toIterable().containsSubsequence("rep", "rtu", "dreq", "drep");
        long comm = Long.parseLong(c.get("localCommId").asText().substring(2), 16);
        List<JsonNode> reqs = ServeFixture.reqs(acceptor);
        assertThat(reqs).extracting(j -> j.get("localCommId").asLong()).contains(comm);
        String trace = reqs.stream().filter(j -> j.get("localCommId").asLong() == comm).findFirst().orElseThrow()
                .get("traceId").asText();
        assertThat(events(acceptor, "established")).extracting(j -> j.get("traceId").asText()).contains(trace);
        assertThat(events(acceptor, "disconnected")).extracting(j -> j.get("traceId").asText()).contains(trace);
        awaitSessions(0);

        // tshark on what crossed the uplink: every CM message, comm IDs tying REQ, MRA, REP, RTU, DREQ, DREP together
        Proc.Run t = Proc.run(List.of("tshark", "-r", pcap.toString(), "-T", "fields", "-E", "separator=/t",
                "-e", "infiniband.mad.attributeid", "-e", "infiniband.cm.req", "-e", "infiniband.cm.rep", "-e",
                "infiniband.cm.rep.remotecommid",
                "-e", "infiniband.cm.rtu.localcommid", "-e", "infiniband.cm.dreq.localcommid", "-e",
                "infiniband.cm.drsp.remotecommid",
                "-e", "ip.src", "-e", "ip.dst"), 60_000);
        List<String> attrs = new ArrayList<>();
        String ourId = String.format("0x%08x", comm);
        for (String line : t.out().split("\n")) {
            String[] x = line.split("\t", -1);
            if (x.length < 9 || x[0].isBlank()) {
                continue;
            }
            attrs.add(x[0]);
            if (x[0].equals("0x0013")) { // REP: from the pod's address, naming our REQ
                assertThat(x[3]).isEqualTo(ourId);
                assertThat(x[7]).isEqualTo("10.88.0.11");
                assertThat(x[8]).isEqualTo("10.88.0.99");
            }
        }
        assertThat(attrs).containsSubsequence("0x0010", "0x0011", "0x0013", "0x0014", "0x0015", "0x0016");
        // every frame the daemon put on the wire carries a correct ICRC (tshark does not check it; our decoder does)
        try (InputStream in = Files.newInputStream(pcap); PcapReader r = new PcapReader(in)) {
            PcapReader.Record rec;
            int n = 0;
            while ((rec = r.next()) != null) {
                FrameResult fr = RoceDecoder.decodeEthernet(rec.data());
                assertThat(fr).isInstanceOf(FrameResult.Decoded.class);
                assertThat(((FrameResult.Decoded) fr).frame().icrcValid()).isTrue();
                n++;
            }
            assertThat(n).isGreaterThanOrEqualTo(6);
        }
    }

    @Test
    @Order(2)
    void lostRtusMakeTheDaemonResendItsRepUntilOneGetsThrough() throws Exception {
        double retries = f.metric("frames_sent_total{kind=\"rep-retry\"}");
        // The bridge between client and uplink loses RTUs (attribute 0x0014, 44 bytes into the UDP payload) for 1.5 s
        nft(f.bridge, "table bridge cmxloss {\n chain loss {\n  type filter hook forward priority 0; policy accept;\n"
                + "  udp dport 4791 @th,352,16 0x0014 drop\n }\n}\n");
        Proc connect = new Proc(Binaries.cmdemux(f.cli, "connect", "--dst", "10.88.0.11:7471", "--timeout", "20000",
                "--hold", "3000",
                "--cm-timeout", "15", "--json"));
        // the loss lasts until the daemon has resent its REP (4.096 µs × 2^15 ≈ 134 ms after each unanswered one)
        long until = System.currentTimeMillis() + 15_000;
        while (f.metric("frames_sent_total{kind=\"rep-retry\"}") - retries < 2 && System.currentTimeMillis() < until) {
            Thread.sleep(50);
        }
        double resent = f.metric("frames_sent_total{kind=\"rep-retry\"}") - retries;
        sh("ip", "netns", "exec", f.bridge, "nft", "delete", "table", "bridge", "cmxloss");
        assertThat(connect.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        JsonNode c = ServeFixture.JSON.readTree(connect.out.get(connect.out.size() - 1));
        connect.close();
        assertThat(c.get("result").asText()).isEqualTo("rep");
        assertThat(resent).as("REP retransmissions while RTUs were lost").isGreaterThanOrEqualTo(2);
        long comm = Long.parseLong(c.get("localCommId").asText().substring(2), 16);
        String trace = ServeFixture.reqs(acceptor).stream().filter(j -> j.get("localCommId").asLong() == comm)
                .findFirst().orElseThrow()
                .get("traceId").asText();
        long deadline = System.currentTimeMillis() + 5000;
        while (events(acceptor, "established").stream().noneMatch(j -> j.get("traceId").asText().equals(trace))
                && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        assertThat(events(acceptor, "established")).extracting(j -> j.get("traceId").asText()).contains(trace);
        assertThat(ServeFixture.reqs(acceptor).stream().filter(j -> j.get("localCommId").asLong() == comm).count())
                .as("the REQ was delivered once").isEqualTo(1);
    }

    @Test
    @Order(3)
    void lostRepsAreResentToTheRetriedReqWithoutASecondDelivery() throws Exception {
        // The bridge loses REPs (0x0013) and MRAs (0x0011) for 1.5 s, so the client keeps resending its REQ
        nft(f.bridge, "table bridge cmxloss2 {\n chain loss {\n  type filter hook forward priority 0; policy accept;\n"
                + "  udp dport 4791 @th,352,16 { 0x0011, 0x0013 } drop\n }\n}\n");
        double dups = f.metric("duplicate_requests_total");
        Proc connect = new Proc(Binaries.cmdemux(f.cli, "connect", "--dst", "10.88.0.11:7471", "--timeout", "20000",
                "--retry", "300",
                "--cm-timeout", "22", "--json"));
        // the loss lasts until the client has retried its REQ at least twice
        long until = System.currentTimeMillis() + 15_000;
        while (f.metric("duplicate_requests_total") - dups < 2 && System.currentTimeMillis() < until) {
            Thread.sleep(50);
        }
        sh("ip", "netns", "exec", f.bridge, "nft", "delete", "table", "bridge", "cmxloss2");
        assertThat(connect.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        JsonNode c = ServeFixture.JSON.readTree(connect.out.get(connect.out.size() - 1));
        connect.close();
        assertThat(c.get("result").asText()).isEqualTo("rep");
        long comm = Long.parseLong(c.get("localCommId").asText().substring(2), 16);
        assertThat(ServeFixture.reqs(acceptor).stream().filter(j -> j.get("localCommId").asLong() == comm).count())
                .as("retried REQs reach the consumer once").isEqualTo(1);
        assertThat(f.metric("duplicate_requests_total") - dups).as("retried REQs seen as duplicates")
                .isGreaterThanOrEqualTo(2);
    }

    @Test
    @Order(4)
    void aConsumerKilledMidHandshakeLeavesThePeerARejAndNoSession() throws Exception {
        awaitSessionsAtMost(2);
        Proc silent = f.listen(2, "0.0.0.0", 7472); // takes requests, never answers
        Proc connect = new Proc(Binaries.cmdemux(f.cli, "connect", "--dst", "10.88.0.12:7472", "--timeout",
                "20000", "--json"));
        assertThat(silent.await(l -> l.contains("\"event\":\"req\""), 30_000))
                .as("the REQ reached the consumer").isTrue();
        silent.process.destroyForcibly(); // kill -9 between REQ and REP
        assertThat(connect.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        JsonNode c = ServeFixture.JSON.readTree(connect.out.get(connect.out.size() - 1));
        assertThat(c.get("result").asText()).as("the peer hears that the connection is off").isEqualTo("rej");
        assertThat(c.get("rejectReason").asInt()).isEqualTo(28);
        connect.close();
    }

    private static void nft(String netns, String ruleset) throws Exception {
        Path file = f.dir.resolve("rules-" + System.nanoTime() + ".nft");
        Files.writeString(file, ruleset);
        sh("ip", "netns", "exec", netns, "nft", "-f", file.toString());
    }

    private static void awaitSessionsAtMost(double n) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (f.metric("sessions") > n && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
    }

    @Test
    @Order(5)
    void theTableEmptiesOnceEveryConnectionIsClosed() throws Exception {
        acceptor.close(); // established connections of a departing consumer are disconnected on the wire
        awaitSessions(0);
        assertThat(sh("nft", "list", "tables")).doesNotContain("cmxloss");
    }
}
