package io.cmdemux.control.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.client.ReconnectingConsumer;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.Rejection;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.dataplane.consumer.Consumers;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.netdev.InetAddresses;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The consumer library's own reconnection (issue 20 §3), against a real control server that goes away and comes
 * back, with a consumer in a real pod namespace, as root.
 */
class ReconnectingConsumerAsRootTest {
    private static final String IP_A = "10.213.1.2";

    private ControlLab lab;
    private String podA;
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<long[]> rejects = new CopyOnWriteArrayList<>();
    private ReconnectingConsumer consumer;

    @BeforeEach
    void setUp() throws IOException {
        lab = new ControlLab("rc");
        podA = lab.pod("podA", IP_A + "/24");
        start();
    }

    @AfterEach
    void tearDown() {
        if (consumer != null) {
            consumer.close();
        }
        lab.close();
    }

    private void start() throws IOException {
        lab.start().onReject((traceId, reason, ari, pd) -> rejects.add(new long[] {traceId, reason}));
        lab.awaitReady(podA, IP_A);
    }

    private static ListenSpec tcp(String ip, int port) {
        return ListenSpec.of(PortSpace.TCP, InetAddresses.parse(ip), port);
    }

    /** A consumer in podA, on the @name socket of podA, writing what happens to {@link #events}. */
    private ReconnectingConsumer register(Duration firstTries, ListenSpec... specs) throws Exception {
        String ns = "/run/netns/" + podA;
        return ReconnectingConsumer.register(ControlClient.abstractAddress(lab.abstractName), "test",
                List.of(specs), firstTries, new ReconnectingConsumer.Events() {
                    @Override
                    public void disconnected(String why) {
                        events.add("disconnected: " + why);
                    }

                    @Override
                    public void reconnected(ReconnectingConsumer.Registration r) {
                        events.add("reconnected: " + r.listeners().size());
                    }

                    @Override
                    public void refused(RequestRefused why) {
                        events.add("refused: " + Wire.errnoName(why.status()));
                    }
                }, () -> lab.executor.call(ns, EpollDomainSocketChannel::new));
    }

    @Test
    void afterARestartItsListenersAreBackWithoutTheConsumerAskingAndRequestsFlowAgain() throws Exception {
        consumer = register(Duration.ofSeconds(5), tcp(IP_A, 7471), tcp("0.0.0.0", 7472));
        assertThat(consumer.registration().listeners()).hasSize(2);
        assertThat(consumer.registration().me().netns()).isEqualTo(lab.id(podA));
        lab.server.close(); // the daemon goes, and its listeners with it
        ControlLab.await("the disconnected event", () -> !events.isEmpty());
        assertThat(events.get(0)).startsWith("disconnected: ");
        start();
        // Nobody calls the consumer meanwhile: it registers again on its own thread.
        ControlLab.await("both listeners with the new daemon", () -> lab.server.listeners().all().size() == 2);
        ControlLab.await("the reconnected event", () -> events.size() == 2);
        assertThat(events.get(1)).isEqualTo("reconnected: 2");
        var a = lab.id(podA);
        assertThat(lab.server.listeners().all()).allMatch(l -> l.netns().equals(a));
        Listener l = lab.listener(x -> x.port() == 7472);
        assertThat(lab.server.deliver(ControlLab.delivery(4242, l, IP_A, 0x4242))).isEqualTo(Consumers.Handover.TAKEN);
        List<DeliveredRequest> got = consumer.nextRequests(8, Duration.ofSeconds(5));
        assertThat(got).extracting(DeliveredRequest::traceId).containsExactly(4242L);
        assertThat(got.get(0).listenerId()).isEqualTo(consumer.registration().listeners().get(1).listenerId());
        consumer.client().reject(new Rejection(4242, 28, null, null)); // answered on the new connection
        ControlLab.await("the REJ", () -> !rejects.isEmpty());
        assertThat(rejects.get(0)).containsExactly(4242, 28);
    }

    @Test
    void nextRequestsWaitsThroughTheRestartAndHandsOverTheNextDaemonsRequests() throws Exception {
        consumer = register(Duration.ofSeconds(5), tcp(IP_A, 7471));
        lab.server.close();
        Thread restart = new Thread(() -> {
            try {
                Thread.sleep(300);
                start();
                ControlLab.await("the listener", () -> !lab.server.listeners().all().isEmpty());
                lab.server.deliver(ControlLab.delivery(7, lab.listener(x -> true), IP_A, 7));
            } catch (IOException | InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        restart.start();
        // One call, made while no daemon runs, returns the next daemon's request.
        List<DeliveredRequest> got = consumer.nextRequests(8, Duration.ofSeconds(10));
        restart.join();
        assertThat(got).extracting(DeliveredRequest::traceId).containsExactly(7L);
    }

    @Test
    void withNoDaemonNextRequestsReturnsNothingWhenItsTimeIsUp() throws Exception {
        consumer = register(Duration.ofSeconds(5), tcp(IP_A, 7471));
        lab.server.close();
        long t0 = System.nanoTime();
        assertThat(consumer.nextRequests(8, Duration.ofMillis(300))).isEmpty();
        assertThat(System.nanoTime() - t0).as("it waited for its time, not for ever")
                .isBetween(250_000_000L, 5_000_000_000L);
    }

    @Test
    void aListenTheNextDaemonRefusesEndsItAndNextRequestsSaysWhy() throws Exception {
        consumer = register(Duration.ofSeconds(5), tcp(IP_A, 7471));
        lab.server.close();
        // the pod loses the address while no daemon runs: the next daemon cannot give it a listener there
        Host.sh("ip", "-n", podA, "addr", "del", IP_A + "/24", "dev", "eth0");
        lab.start();
        ControlLab.await("the refusal", () -> events.stream().anyMatch(e -> e.startsWith("refused")));
        assertThat(events).contains("refused: EADDRNOTAVAIL");
        assertThatThrownBy(() -> consumer.nextRequests(8, Duration.ofSeconds(5)))
                .isInstanceOf(IOException.class).hasMessageContaining("EADDRNOTAVAIL");
        assertThat(lab.server.listeners().all()).isEmpty();
    }

    @Test
    void aClosedConsumerDoesNotComeBackWithTheNextDaemon() throws Exception {
        consumer = register(Duration.ofSeconds(5), tcp(IP_A, 7471));
        lab.server.close();
        ControlLab.await("the disconnected event", () -> !events.isEmpty());
        consumer.close();
        start();
        Thread.sleep(500); // some 25 tries' worth of time, had it gone on
        assertThat(lab.server.listeners().all()).isEmpty();
        assertThat(events).hasSize(1);
    }

    @Test
    void theFirstRegistrationWaitsForADaemonThatIsNotThereYet() throws Exception {
        lab.server.close();
        Thread later = new Thread(() -> {
            try {
                Thread.sleep(300);
                start();
            } catch (IOException | InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        later.start();
        consumer = register(Duration.ofSeconds(10), tcp(IP_A, 7471));
        later.join();
        assertThat(consumer.registration().listeners()).hasSize(1);
        assertThat(lab.server.listeners().all()).hasSize(1);
    }

    @Test
    void withNoDaemonTheFirstRegistrationGivesUpAfterItsTime() throws Exception {
        lab.server.close();
        assertThatThrownBy(() -> register(Duration.ofMillis(200), tcp(IP_A, 7471)))
                .isInstanceOf(IOException.class).hasMessageContaining("cannot connect");
    }
}
