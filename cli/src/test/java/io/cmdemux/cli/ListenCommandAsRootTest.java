package io.cmdemux.cli;

import io.cmdemux.control.server.ControlLab;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.dataplane.consumer.Consumers;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** `ip netns exec POD cmdemux listen ...` as a real process against a real control server, as root. */
class ListenCommandAsRootTest {
    private static final String IP_A = "10.213.1.2";
    private static final String IP_B = "10.213.2.2";

    private ControlLab lab;
    private String podA;
    private String podB;
    private final List<long[]> rejects = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        lab = new ControlLab("lc");
        podA = lab.pod("podA", IP_A + "/24");
        podB = lab.pod("podB", IP_B + "/24");
        lab.start().onReject((traceId, reason, ari, pd) -> rejects.add(new long[] {traceId, reason}));
        lab.awaitReady(podA, IP_A);
        lab.awaitReady(podB, IP_B);
    }

    @AfterEach
    void tearDown() {
        lab.close();
    }

    private ListenProcess listen(String ns, String... args) throws IOException {
        String[] all = new String[args.length + 2];
        all[0] = "--abstract";
        all[1] = lab.abstractName;
        System.arraycopy(args, 0, all, 2, args.length);
        return ListenProcess.start(ns, all);
    }

    @Test
    void listenInAPodPrintsEachDeliveredRequestAsOneJsonLine() throws Exception {
        ListenProcess p = listen(podA, "--ip", IP_A, "--port", "7471", "--json");
        try {
            JsonNode listening = p.nextJson();
            assertThat(listening.path("event").asText()).isEqualTo("listening");
            assertThat(listening.path("via").asText()).isEqualTo("abstract");
            assertThat(listening.path("namespace").path("name").asText()).isEqualTo(podA);
            assertThat(listening.path("address").asText()).isEqualTo(IP_A);
            Listener l = lab.listener(x -> x.port() == 7471);
            for (int i = 1; i <= 3; i++) {
                assertThat(lab.server.deliver(ControlLab.delivery(1000 + i, l, IP_A, 0xabc000L + i)))
                        .isEqualTo(Consumers.Handover.TAKEN);
                JsonNode req = p.nextJson();
                assertThat(req.path("event").asText()).isEqualTo("req");
                assertThat(req.path("traceId").asText()).isEqualTo(Long.toString(1000 + i));
                assertThat(req.path("localCommId").asLong()).isEqualTo(0xabc000L + i);
                assertThat(req.path("peer").path("ip").asText()).isEqualTo("10.213.0.1");
                assertThat(req.path("peer").path("port").asInt()).isEqualTo(40000);
                assertThat(req.path("local").path("ip").asText()).isEqualTo(IP_A);
                assertThat(req.path("ps").asText()).isEqualTo("tcp");
                assertThat(req.path("port").asInt()).isEqualTo(7471);
                assertThat(req.path("decision").path("outcome").asText()).isEqualTo("deliver");
                assertThat(req.path("decision").path("namespace").path("name").asText()).isEqualTo(podA);
                assertThat(req.has("rejected")).isFalse();
            }
        } finally {
            p.stop();
        }
        assertThat(rejects).isEmpty();
    }

    @Test
    void withRejectItAnswersEveryRequestWithThatReason() throws Exception {
        ListenProcess p = listen(podB, "--ip", "0.0.0.0", "--port", "7471", "--reject", "28", "--json");
        try {
            p.nextJson();
            Listener l = lab.listener(x -> x.port() == 7471);
            assertThat(lab.server.deliver(ControlLab.delivery(77, l, IP_B, 5))).isEqualTo(Consumers.Handover.TAKEN);
            assertThat(p.nextJson().path("rejected").asInt()).isEqualTo(28);
            ControlLab.await("the REJECT", () -> !rejects.isEmpty());
            assertThat(rejects.get(0)).containsExactly(77, 28);
        } finally {
            p.stop();
        }
    }

    @Test
    void sigtermEndsItCleanlyAndItsListenerVanishes() throws Exception {
        ListenProcess p = listen(podA, "--ip", "0.0.0.0", "--port", "7472", "--json");
        p.nextJson();
        assertThat(lab.server.listeners().all()).hasSize(1);
        int exit = p.stop();
        assertThat(exit).as("exit status after SIGTERM; stderr:\n" + p.stderr()).isIn(0, 143);
        assertThat(p.nextJson().path("event").asText()).isEqualTo("closed");
        assertThat(p.stderr()).doesNotContain("Exception");
        ControlLab.await("the listener to vanish", () -> lab.server.listeners().all().isEmpty());
    }

    @Test
    void countEndsItAfterThatManyRequests() throws Exception {
        ListenProcess p = listen(podA, "--ip", IP_A, "--port", "7473", "--count", "1", "--json");
        p.nextJson();
        Listener l = lab.listener(x -> x.port() == 7473);
        lab.server.deliver(ControlLab.delivery(9, l, IP_A, 9));
        assertThat(p.nextJson().path("traceId").asText()).isEqualTo("9");
        assertThat(p.waitFor()).isZero();
    }

    @Test
    void aRefusedListenExitsWithOneAndSaysWhy() throws Exception {
        ListenProcess p = listen(podA, "--ip", IP_B, "--port", "7471");
        assertThat(p.waitFor()).isEqualTo(1);
        assertThat(p.stderr()).contains("EADDRNOTAVAIL").contains(IP_B);
        assertThat(lab.server.listeners().all()).isEmpty();
    }

    @Test
    void withoutADaemonInItsNamespaceItExitsWithThree() throws Exception {
        String hidden = lab.hiddenPod("hid");
        ListenProcess p = listen(hidden, "--ip", "0.0.0.0", "--port", "1", "--connect-timeout", "500");
        assertThat(p.waitFor()).isEqualTo(3);
        assertThat(p.stderr()).contains("cannot reach the cmdemux daemon");
    }
    @Test
    void aDaemonRestartIsSurvivedTheListenerComesBackAndRequestsFlowAgain() throws Exception {
        ListenProcess p = listen(podA, "--ip", IP_A, "--port", "7476", "--json");
        try {
            assertThat(p.nextJson().path("event").asText()).isEqualTo("listening");
            lab.server.close(); // the daemon goes: its sockets close, its listeners die with it
            JsonNode gone = p.nextJson();
            assertThat(gone.path("event").asText()).isEqualTo("disconnected");
            lab.start();
            JsonNode back = p.nextJson();
            assertThat(back.path("event").asText()).isEqualTo("reconnected");
            assertThat(back.path("namespace").path("name").asText()).isEqualTo(podA);
            assertThat(back.path("port").asInt()).isEqualTo(7476);
            Listener l = lab.listener(x -> x.port() == 7476);
            assertThat(l.netns()).isEqualTo(lab.id(podA));
            assertThat(lab.server.deliver(ControlLab.delivery(4242, l, IP_A, 0x4242L)))
                    .isEqualTo(Consumers.Handover.TAKEN);
            JsonNode req = p.nextJson();
            assertThat(req.path("event").asText()).isEqualTo("req");
            assertThat(req.path("traceId").asText()).isEqualTo("4242");
            assertThat(req.path("listenerId").asLong()).isEqualTo(back.path("listenerId").asLong());
        } finally {
            p.stop();
        }
    }

    @Test
    void withNoReconnectTheDaemonGoingAwayEndsItWithThree() throws Exception {
        ListenProcess p = listen(podA, "--ip", IP_A, "--port", "7477", "--json", "--no-reconnect");
        assertThat(p.nextJson().path("event").asText()).isEqualTo("listening");
        lab.server.close();
        assertThat(p.waitFor()).isEqualTo(3);
        assertThat(p.stderr()).contains("closed");
    }
}
