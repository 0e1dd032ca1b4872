package io.cmdemux.control.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameCodec;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.ListenerInfo;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.dataplane.consumer.Consumers;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.netdev.InetAddresses;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile clients on the host socket and on {@code @cmdemux} in a pod at once (issue 20 §4), while an
 * honest consumer in another pod takes deliveries: 1,000 idle connections from one pod, half frames,
 * lengths of 2^32 - 1, random bytes, a LISTEN/UNLISTEN flood and listens on another pod's address.
 * Every delivery reaches the honest consumer, each bad client is cut or refused with a counted reason,
 * no spoof is accepted, and once the attackers are gone the file descriptors are back where they
 * were. The latency beside a quiet run is a measurement, not a test: scripts, not here. Needs root.
 */
class HostileClientsAsRootTest {
    private static final String IP_A = "10.213.7.2";
    private static final String IP_B = "10.213.7.3";
    private static final int DELIVERIES = 2000;
    private ControlLab lab;
    private String attacker;
    private String honest;

    @BeforeEach
    void setUp() throws IOException {
        lab = new ControlLab("hc");
        attacker = lab.pod("bad", IP_A + "/24");
        honest = lab.pod("good", IP_B + "/24");
        lab.start(ControlServer.Config.defaults().withLimits(128, 1024, 4096, 4096, 300), null);
        lab.awaitReady(attacker, IP_A);
        lab.awaitReady(honest, IP_B);
    }

    @AfterEach
    void tearDown() {
        lab.close();
    }

    private static ListenSpec tcp(String ip, int port) {
        return ListenSpec.of(PortSpace.TCP, InetAddresses.parse(ip), port);
    }

    @Test
    void attackersOnBothSocketsAtOnceAreCutWithCountedReasonsWhileAnHonestConsumerIsServed() throws Exception {
        ControlClient good = lab.podClient(honest);
        good.hello("honest");
        good.listen(tcp(IP_B, 7471));
        Listener l = lab.listener(x -> x.port() == 7471);
        int fdsBefore = ControlLab.openFds();

        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(5);
        List<ControlClient> idle = new ArrayList<>();
        List<CompletableFuture<Void>> attacks = List.of(
                CompletableFuture.runAsync(() -> idleConnections(idle), pool),
                CompletableFuture.runAsync(this::halfFramesAndHugeLengths, pool),
                CompletableFuture.runAsync(this::randomBytes, pool),
                CompletableFuture.runAsync(this::listenUnlistenFlood, pool),
                CompletableFuture.runAsync(this::spoofs, pool));

        int taken = 0;
        for (int i = 0; i < DELIVERIES; i++) {
            Consumers.Handover h = lab.server.deliver(ControlLab.delivery(100_000 + i, l, IP_B, i));
            assertThat(h).as("delivery %d beside the attacks", i).isEqualTo(Consumers.Handover.TAKEN);
            // take as they come, so that the honest consumer never holds a backlog
            for (DeliveredRequest r : good.nextRequests(64, Duration.ZERO)) {
                assertThat(r.traceId()).isEqualTo(100_000 + taken);
                taken++;
            }
        }
        for (CompletableFuture<Void> a : attacks) {
            a.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (taken < DELIVERIES && System.nanoTime() < deadline) {
            for (DeliveredRequest r : good.nextRequests(64, Duration.ofMillis(100))) {
                assertThat(r.traceId()).isEqualTo(100_000 + taken);
                taken++;
            }
        }
        assertThat(taken).as("deliveries the honest consumer received").isEqualTo(DELIVERIES);

        Map<String, Long> c = lab.server.counters().snapshot();
        assertThat(c.getOrDefault("closed.too-many-connections", 0L))
                .as("idle connections beyond the attacker namespace's 128 (counters %s)", c)
                .isGreaterThanOrEqualTo(1000 - 128);
        assertThat(c.getOrDefault("closed.stalled-frame", 0L)).as("half frames, %s", c).isGreaterThanOrEqualTo(20);
        assertThat(c.getOrDefault("closed.too-large", 0L)).as("2^32 - 1 lengths, %s", c).isGreaterThanOrEqualTo(20);
        assertThat(c.getOrDefault("refused.EADDRNOTAVAIL", 0L)).as("spoofed listens, %s", c).isEqualTo(100);
        // 4,000 LISTEN and UNLISTEN lines from the attacker's namespace: at info only its burst and one a second.
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + 1;
        assertThat(c.getOrDefault("log.over-budget", 0L)).as("flood lines kept out of the log at info, %s", c)
                .isGreaterThanOrEqualTo(4000 - LogBudget.BURST - seconds);
        assertThat(lab.server.listeners().all()).as("no spoofed listener stands")
                .filteredOn(x -> x.address() != null && InetAddresses.toText(x.address()).equals(IP_B))
                .extracting(Listener::netns).containsOnly(l.netns());

        for (ControlClient i : idle) {
            i.close();
        }
        ControlLab.await("the attackers' connections to close", () -> lab.server.stats().connections() <= 2);
        ControlLab.await("the fd count to come back to " + fdsBefore, () -> {
            try {
                return ControlLab.openFds() <= fdsBefore + 2;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertThat(good.hello("still served").netns()).isEqualTo(lab.id(honest));
    }

    private void idleConnections(List<ControlClient> out) {
        for (int i = 0; i < 1000; i++) {
            try {
                ControlClient c = lab.podClient(attacker);
                synchronized (out) {
                    out.add(c);
                }
            } catch (IOException e) {
                // refused before connect returned: counted by the server all the same
            }
        }
    }

    private void halfFramesAndHugeLengths() {
        try {
            for (int i = 0; i < 20; i++) {
                raw(lab.hostSocketClient(null), new byte[] {1, 1, 0}); // half a header, then silence
                byte[] huge = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
                ByteBuffer.wrap(huge).putInt(8, 0xffffffff);
                raw(lab.hostSocketClient(null), huge);
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private void randomBytes() {
        Random rnd = new Random(20);
        try {
            for (int i = 0; i < 50; i++) {
                byte[] junk = new byte[1 + rnd.nextInt(4096)];
                rnd.nextBytes(junk);
                ControlClient c = i % 2 == 0 ? lab.hostSocketClient(null) : lab.podClient(attacker);
                raw(c, junk);
                c.close();
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private void listenUnlistenFlood() {
        try (ControlClient c = lab.podClient(attacker)) {
            for (int i = 0; i < 2000; i++) {
                ListenerInfo li = c.listen(tcp(IP_A, 9000 + i % 50));
                c.unlisten(li.listenerId());
            }
        } catch (IOException | RequestRefused e) {
            throw new AssertionError(e);
        }
    }

    private void spoofs() {
        try (ControlClient c = lab.podClient(attacker)) {
            for (int i = 0; i < 100; i++) {
                try {
                    c.listen(tcp(IP_B, 7472 + i));
                    throw new AssertionError("a listen on another pod's address was accepted");
                } catch (RequestRefused e) {
                    assertThat(e.status()).isEqualTo(Wire.EADDRNOTAVAIL);
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static void raw(ControlClient c, byte[] bytes) {
        c.channel().writeAndFlush(Unpooled.wrappedBuffer(bytes)).awaitUninterruptibly(2000);
    }
}
