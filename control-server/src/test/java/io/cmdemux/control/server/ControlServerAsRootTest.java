package io.cmdemux.control.server;

import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.protocol.Acceptance;
import io.cmdemux.control.protocol.CmEventInfo;
import io.cmdemux.dataplane.consumer.CmEvent;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameCodec;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.ListenerInfo;
import io.cmdemux.control.protocol.Messages;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Rejection;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Via;
import io.cmdemux.control.protocol.Wire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.ingress.resolve.Listener;
import io.netty.channel.EventLoop;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.dataplane.consumer.Consumers;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The control server with real namespaces, veths and sockets, as root: who may listen where,
 * what reaches whom, and what hostile input does to it.
 */
class ControlServerAsRootTest {
    private static final String IP_A = "10.213.1.2";
    private static final String IP_B = "10.213.2.2";

    private ControlLab lab;
    private String podA;
    private String podB;
    private final List<long[]> rejects = new CopyOnWriteArrayList<>();
    private final List<byte[][]> rejectBytes = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        lab = new ControlLab("cs");
        podA = lab.pod("podA", IP_A + "/24");
        podB = lab.pod("podB", IP_B + "/24");
    }

    @AfterEach
    void tearDown() {
        lab.close();
    }

    private ControlServer start() throws IOException {
        return start(ControlServer.Config.defaults(), null);
    }

    private ControlServer start(ControlServer.Config cfg, QueryHandler q) throws IOException {
        ControlServer s = lab.start(cfg, q);
        s.onReject((traceId, reason, ari, pd) -> {
            rejects.add(new long[] {traceId, reason});
            rejectBytes.add(new byte[][] {ari, pd});
        });
        lab.awaitReady(podA, IP_A);
        lab.awaitReady(podB, IP_B);
        return s;
    }

    private static ListenSpec tcp(String ip, int port) {
        return ListenSpec.of(PortSpace.TCP, InetAddresses.parse(ip), port);
    }

    private static int refusal(ThrowingCall call) {
        try {
            call.run();
        } catch (RequestRefused e) {
            return e.status();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("the request was not refused");
    }

    @FunctionalInterface
    interface ThrowingCall {
        void run() throws IOException, RequestRefused;
    }

    // ---- spoofing ----

    @Test
    void aPodConsumerCannotListenOnAnotherPodsAddress() throws Exception {
        start();
        ControlClient a = lab.podClient(podA);
        assertThat(refusal(() -> a.listen(tcp(IP_B, 7471)))).isEqualTo(Wire.EADDRNOTAVAIL);
        assertThat(lab.server.listeners().all()).isEmpty();
        ListenerInfo own = a.listen(tcp(IP_A, 7471));
        assertThat(own.netnsInode()).isEqualTo(lab.id(podA).inode());
        assertThat(lab.server.listeners().bindList(lab.id(podA), PortSpace.TCP, 7471)).hasSize(1);
        assertThat(lab.server.listeners().bindList(lab.id(podB), PortSpace.TCP, 7471)).isEmpty();
    }

    @Test
    void aMessageClaimingAnotherNamespaceChangesNothing() throws Exception {
        start();
        NetnsId b = lab.id(podB);
        ControlClient a = lab.podClient(podA);
        // HELLO carrying a CONSUMER record that claims podB: ignored, the answer is podA.
        ConsumerInfo fake = new ConsumerInfo(1, b, Via.HOST_SOCKET, 1, podB, "");
        Frame hello = a.call(Wire.HELLO, List.of(Record.optional(Wire.R_CONSUMER, Messages.consumer(fake).value()),
                Record.text(Wire.R_NETNS_NAME, podB)), Duration.ofSeconds(5));
        assertThat(hello.status()).isZero();
        assertThat(Messages.consumer(hello).netns()).isEqualTo(lab.id(podA));
        // LISTEN with podB's name and identity attached as optional records: placed in podA all the same.
        Record identity = Record.optional(Wire.R_CONSUMER, Messages.consumer(fake).value());
        Frame listen = a.call(Wire.LISTEN, List.of(Messages.listenSpec(tcp("0.0.0.0", 7471)),
                Record.text(Wire.R_NETNS_NAME, podB), identity), Duration.ofSeconds(5));
        assertThat(listen.status()).as(listen.text()).isZero();
        assertThat(Messages.listener(listen.first(Wire.R_LISTENER).orElseThrow()).netnsInode())
                .isEqualTo(lab.id(podA).inode());
        // The same claim marked mandatory is not understood in a LISTEN, so it is refused outright.
        Frame strict = a.call(Wire.LISTEN, List.of(Messages.listenSpec(tcp("0.0.0.0", 7472)), Messages.consumer(fake)),
                Duration.ofSeconds(5));
        assertThat(strict.status()).isEqualTo(Wire.EOPNOTSUPP);
        assertThat(lab.server.listeners().all()).extracting(Listener::netns).containsOnly(lab.id(podA));
        assertThat(lab.server.listeners().bindList(b, PortSpace.TCP, 7471)).isEmpty();
    }

    @Test
    void aHostSocketClientIsPlacedInTheHostNamespace() throws Exception {
        start();
        ControlClient c = lab.hostSocketClient(null);
        ConsumerInfo me = c.hello("test");
        assertThat(me.netns()).isEqualTo(lab.hostId());
        assertThat(me.via()).isEqualTo(Via.HOST_SOCKET);
        assertThat(me.pid()).isEqualTo((int) ProcessHandle.current().pid());
        assertThat(me.netnsName()).isEqualTo("host");
    }

    @Test
    void aHostSocketClientWhoseSocketWasMadeInAPodButWhoseProcessIsNotIsRefused() throws Exception {
        start();
        // SO_PEERCRED says our pid (host namespace); the socket's own netns cookie says podA.
        ControlClient c = lab.hostSocketClient(podA);
        assertThatThrownBy(() -> c.hello("test")).isInstanceOf(IOException.class)
                .hasMessageContaining("another network namespace");
        ControlLab.await("the refusal to be counted", () -> lab.server.counters().get("closed.unidentified") == 1);
        assertThat(c.error().status()).isEqualTo(Wire.EPERM);
    }

    @Test
    void theAbstractSocketIsReachableInsideAServedNamespaceAndNotFromAnother() throws Exception {
        start();
        assertThat(lab.podClient(podA).hello("a").netns()).isEqualTo(lab.id(podA));
        assertThat(lab.podClient(podB).hello("b").netns()).isEqualTo(lab.id(podB));
        String hidden = lab.hiddenPod("hid");
        assertThatThrownBy(() -> lab.podClient(hidden)).isInstanceOf(IOException.class).hasMessageContaining("refused");
        // A second, independent client: Python's socket module, run inside each namespace.
        Host.requireCommand("python3", "python3");
        String probe = "import socket;s=socket.socket(socket.AF_UNIX);s.connect('\\0" + lab.abstractName
                + "');print('ok')";
        assertThat(Host.run("ip", "netns", "exec", hidden, "python3", "-c", probe).exit()).isNotZero();
        assertThat(Host.run("ip", "netns", "exec", podA, "python3", "-c", probe).stdout()).contains("ok");
    }

    @Test
    void namespacesThatAppearAreServedAndThoseThatVanishAreNot() throws Exception {
        start();
        String podC = lab.pod("podC", "10.213.3.2/24");
        lab.awaitReady(podC, "10.213.3.2");
        NetnsId c = lab.id(podC);
        assertThat(lab.podClient(podC).hello("c").netns()).isEqualTo(c);
        lab.removePod(podC);
        ControlLab.await("@ to close in the deleted namespace", () -> !lab.server.servedNamespaces().contains(c));
    }

    // ---- LISTEN semantics ----

    @Test
    void listenUnlistenAndAddressInUseFollowTheKernel() throws Exception {
        start();
        ControlClient one = lab.podClient(podA);
        ControlClient two = lab.podClient(podA);
        ListenerInfo first = one.listen(tcp(IP_A, 7471));
        assertThat(refusal(() -> two.listen(tcp(IP_A, 7471)))).isEqualTo(Wire.EADDRINUSE);
        assertThat(refusal(() -> two.listen(tcp("0.0.0.0", 7471)))).isEqualTo(Wire.EADDRNOTAVAIL);
        assertThat(refusal(() -> two.unlisten(first.listenerId()))).isEqualTo(Wire.ENOENT);
        // The same address and port in podB is another bind list.
        lab.podClient(podB).listen(tcp("0.0.0.0", 7471));
        one.unlisten(first.listenerId());
        ListenerInfo second = two.listen(tcp("0.0.0.0", 7471));
        assertThat(second.listenerId()).isGreaterThan(first.listenerId());
        assertThat(second.spec().afonly()).isTrue();
    }

    @Test
    void aConsumersListenersVanishWhenItDisconnects() throws Exception {
        start();
        ControlClient a = lab.podClient(podA);
        a.listen(tcp(IP_A, 7471));
        a.listen(tcp(IP_A, 7472));
        ControlClient b = lab.podClient(podB);
        b.listen(tcp(IP_B, 7471));
        long before = lab.server.listeners().generation();
        a.close();
        ControlLab.await("podA's listeners to vanish", () -> lab.server.listeners().all().size() == 1);
        NetnsId b2 = lab.id(podB);
        assertThat(lab.server.listeners().all()).allMatch(l -> l.netns().equals(b2));
        assertThat(lab.server.listeners().generation()).isEqualTo(before + 1);
    }

    // ---- delivery and REJECT ----

    @Test
    void aConsumerHoldingItsLimitOfUnansweredRequestsGetsNoMoreAndKeepsThoseItHas() throws Exception {
        start(ControlServer.Config.defaults().withLimits(128, 1024, 4096, 3, 10_000), null);
        ControlClient a = lab.podClient(podA);
        a.listen(tcp("0.0.0.0", 7471));
        Listener la = lab.listener(l -> l.netns().equals(uncheckedId(podA)));
        for (long t = 1; t <= 3; t++) {
            assertThat(lab.server.deliver(ControlLab.delivery(t, la, IP_A, 100 + t))).isEqualTo(
                    Consumers.Handover.TAKEN);
        }
        assertThat(lab.server.deliver(ControlLab.delivery(4, la, IP_A, 104)))
                .as("a fourth while three are unanswered: dropped as from a full backlog").isEqualTo(
                        Consumers.Handover.BACKLOG);
        assertThat(lab.server.counters().get("deliver.outstanding")).isEqualTo(1);
        for (int i = 0; i < 3; i++) {
            assertThat(a.nextRequest(Duration.ofSeconds(5))).isNotNull();
        }
        // The oldest is still the consumer's to answer, and answering it makes room.
        a.reject(new Rejection(1, 28, null, null));
        assertThat(rejects).extracting(r -> r[0]).containsExactly(1L);
        assertThat(lab.server.deliver(ControlLab.delivery(5, la, IP_A, 105))).isEqualTo(Consumers.Handover.TAKEN);
    }

    @Test
    void aDeliveredRequestReachesExactlyItsConsumerAndItsRejectComesBack() throws Exception {
        start();
        ControlClient a = lab.podClient(podA);
        ControlClient b = lab.podClient(podB);
        a.listen(tcp("0.0.0.0", 7471));
        b.listen(tcp("0.0.0.0", 7471));
        Listener la = lab.listener(l -> l.netns().equals(uncheckedId(podA)));
        Consumers.Delivery d = ControlLab.delivery(0x1122334455667788L, la, IP_A, 0xdeadbeefL);
        assertThat(lab.server.deliver(d)).isEqualTo(Consumers.Handover.TAKEN);

        DeliveredRequest got = a.nextRequest(Duration.ofSeconds(5));
        assertThat(got).isNotNull();
        assertThat(got.traceId()).isEqualTo(0x1122334455667788L);
        assertThat(got.listenerId()).isEqualTo(la.bindOrder());
        assertThat(got.meta()).isEqualTo(d.meta());
        assertThat(got.frame()).isEqualTo(d.frame());
        assertThat(got.decision().netnsInode()).isEqualTo(lab.id(podA).inode());
        assertThat(got.netnsName()).isEqualTo(podA);
        assertThat(b.nextRequest(Duration.ofMillis(300))).as("podB's consumer gets nothing").isNull();

        // B cannot reject what A was given; A can, once.
        assertThat(refusal(() -> b.reject(new Rejection(got.traceId(), 8, null, null)))).isEqualTo(Wire.ENOENT);
        a.reject(new Rejection(got.traceId(), 28, new byte[] {1, 2}, "why".getBytes(StandardCharsets.US_ASCII)));
        assertThat(rejects).hasSize(1);
        assertThat(rejects.get(0)).containsExactly(0x1122334455667788L, 28);
        assertThat(rejectBytes.get(0)[0]).containsExactly(1, 2);
        assertThat(new String(rejectBytes.get(0)[1], StandardCharsets.US_ASCII)).isEqualTo("why");
        assertThat(refusal(() -> a.reject(new Rejection(got.traceId(), 28, null, null)))).isEqualTo(Wire.ENOENT);
        assertThat(rejects).hasSize(1);

        a.close();
        ControlLab.await("podA's listener to vanish", () -> lab.server.listeners().all().size() == 1);
        assertThat(lab.server.deliver(d)).as("a consumer that left gets nothing").isEqualTo(Consumers.Handover.GONE);
    }

    @Test
    void rejectAllAnswersABatchInOneWriteAndRefusesWhatWasNotDelivered() throws Exception {
        start();
        ControlClient a = lab.podClient(podA);
        a.listen(tcp("0.0.0.0", 7471));
        Listener la = lab.listener(l -> true);
        int n = 200;
        for (long t = 1; t <= n; t++) {
            assertThat(lab.server.deliver(ControlLab.delivery(t, la, IP_A, t))).isEqualTo(Consumers.Handover.TAKEN);
        }
        List<DeliveredRequest> got = new ArrayList<>();
        while (got.size() < n) {
            List<DeliveredRequest> some = a.nextRequests(64, Duration.ofSeconds(5));
            assertThat(some).as("requests after %d of %d", got.size(), n).isNotEmpty();
            got.addAll(some);
        }
        List<Rejection> rs = new ArrayList<>();
        for (DeliveredRequest r : got) {
            rs.add(new Rejection(r.traceId(), 28, null, null));
        }
        rs.add(n / 2, new Rejection(n + 1000, 28, null, null)); // never delivered: refused, the rest unharmed
        List<java.util.concurrent.CompletableFuture<Void>> done = a.rejectAll(rs);
        assertThat(done).hasSize(n + 1);
        for (int i = 0; i < rs.size(); i++) {
            java.util.concurrent.CompletableFuture<Void> f = done.get(i);
            if (rs.get(i).traceId() == n + 1000) {
                assertThatThrownBy(() -> f.get(5, java.util.concurrent.TimeUnit.SECONDS))
                        .hasCauseInstanceOf(RequestRefused.class)
                        .satisfies(e -> assertThat(((RequestRefused) e.getCause()).status()).isEqualTo(Wire.ENOENT));
            } else {
                f.get(5, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
        assertThat(rejects).hasSize(n);
        assertThat(rejects).extracting(r -> r[0]).containsExactlyElementsOf(
                java.util.stream.LongStream.rangeClosed(1, n).boxed().toList());
    }

    /** The server, and a consumer in podA listening on TCP port 7471 of every address. */
    private ControlClient startWithAConsumerInPodA() throws Exception {
        start();
        ControlClient a = lab.podClient(podA);
        a.listen(tcp("0.0.0.0", 7471));
        return a;
    }

    @Test
    void heldDeliveriesReachTheConsumerOnlyAtTheReleaseInOrder() throws Exception {
        ControlClient a = startWithAConsumerInPodA();
        Listener la = lab.listener(l -> true);
        // The tap holds a batch's deliveries while it sends the batch's MRAs: the consumer must not see
        // a request (and answer it) before its MRA is on the wire. A CM event is about a connection the
        // consumer has already seen, so it is not held.
        lab.server.holdDeliveries();
        assertThat(lab.server.deliver(ControlLab.delivery(1, la, IP_A, 11))).isEqualTo(Consumers.Handover.TAKEN);
        assertThat(lab.server.deliver(ControlLab.delivery(2, la, IP_A, 12))).isEqualTo(Consumers.Handover.TAKEN);
        assertThat(lab.server.notify(la.owner(), new CmEvent(9, 0x99, CmEvent.Kind.ESTABLISHED, 0))).isTrue();
        assertThat(a.nextEvent(Duration.ofSeconds(5))).as("the event, during the batch").isNotNull();
        assertThat(a.nextRequest(Duration.ofMillis(300))).as("nothing held is written before the release").isNull();

        lab.server.releaseDeliveries();
        assertThat(a.nextRequest(Duration.ofSeconds(5)).traceId()).isEqualTo(1);
        assertThat(a.nextRequest(Duration.ofSeconds(5)).traceId()).isEqualTo(2);
        // Released, this thread delivers at once again.
        assertThat(lab.server.deliver(ControlLab.delivery(3, la, IP_A, 13))).isEqualTo(Consumers.Handover.TAKEN);
        assertThat(a.nextRequest(Duration.ofSeconds(5)).traceId()).isEqualTo(3);
    }

    @Test
    void aBurstOfDeliveriesArrivesInOrderAndWhatCannotBeQueuedIsRefusedNotLost() throws Exception {
        ControlClient a = startWithAConsumerInPodA();
        Listener la = lab.listener(l -> true);
        int n = 5000;
        List<List<Long>> accepted = List.of(new ArrayList<>(), new ArrayList<>());
        java.util.concurrent.atomic.AtomicInteger otherThanBacklog = new java.util.concurrent.atomic.AtomicInteger();
        Thread[] senders = new Thread[2];
        // Two pipeline threads deliver at once, as the daemon's may, faster than any consumer reads.
        for (int t = 0; t < senders.length; t++) {
            List<Long> mine = accepted.get(t);
            long base = (long) t * n;
            senders[t] = new Thread(() -> {
                for (long i = base; i < base + n; i++) {
                    Consumers.Handover h = lab.server.deliver(ControlLab.delivery(i, la, IP_A, i));
                    if (h == Consumers.Handover.TAKEN) {
                        mine.add(i);
                    } else if (h != Consumers.Handover.BACKLOG) {
                        otherThanBacklog.incrementAndGet();
                    }
                }
            });
            senders[t].start();
        }
        for (Thread t : senders) {
            t.join();
        }
        int total = accepted.get(0).size() + accepted.get(1).size();
        assertThat(otherThanBacklog.get()).as("a consumer that is there but not reading: BACKLOG, not GONE").isZero();
        // Over the 1 MiB high-water mark, or with 4096 unanswered, deliver() says BACKLOG (the pipeline drops, as
        // ucma does); below them nothing is lost.
        assertThat(lab.server.counters().get("deliver.sent")).isEqualTo(total);
        assertThat(lab.server.counters().get("deliver.backlog") + lab.server.counters().get("deliver.outstanding"))
                .isEqualTo(2L * n - total);
        assertThat(total).as("at least the high-water mark's worth is queued").isGreaterThan(3000);
        int[] next = {0, 0};
        for (int i = 0; i < total; i++) {
            DeliveredRequest r = a.nextRequest(Duration.ofSeconds(10));
            assertThat(r).as("request %d of %d", i, total).isNotNull();
            int who = r.traceId() < n ? 0 : 1;
            assertThat(r.traceId()).isEqualTo(accepted.get(who).get(next[who]++));
        }
        assertThat(a.nextRequest(Duration.ofMillis(200))).isNull();
    }

    @Test
    void pipelinedAcceptsAreEachAnsweredWithTheirOwnCommIdAndAnUndeliveredOneIsRefusedAlone() throws Exception {
        ControlServer s = start();
        // The daemon's comm ID for a connection, as Sessions would give one: here derived from the trace.
        s.onAccept((owner, acc) -> (int) acc.traceId() * 2 + 1);
        ControlClient a = lab.podClient(podA);
        a.listen(tcp("0.0.0.0", 7471));
        Listener la = lab.listener(l -> true);
        int n = 300;
        for (long t = 1; t <= n; t++) {
            assertThat(lab.server.deliver(ControlLab.delivery(t, la, IP_A, t))).isEqualTo(Consumers.Handover.TAKEN);
        }
        List<DeliveredRequest> got = new ArrayList<>();
        while (got.size() < n) {
            List<DeliveredRequest> some = a.nextRequests(64, Duration.ofSeconds(5));
            assertThat(some).as("requests after %d of %d", got.size(), n).isNotEmpty().hasSizeLessThanOrEqualTo(64);
            got.addAll(some);
        }
        assertThat(got).extracting(DeliveredRequest::traceId).containsExactlyElementsOf(
                java.util.stream.LongStream.rangeClosed(1, n).boxed().toList());

        // All ACCEPTs in one write, one of them for a trace never delivered, none waiting for another's reply.
        List<Acceptance> as = new ArrayList<>();
        for (DeliveredRequest r : got) {
            as.add(new Acceptance(r.traceId(), 0x100, 0, 1, 1, 7, false, true, new byte[0]));
            if (r.traceId() == n / 2) {
                as.add(new Acceptance(n + 1000, 0x100, 0, 1, 1, 7, false, true, new byte[0]));
            }
        }
        List<java.util.concurrent.CompletableFuture<Integer>> comms = a.acceptAll(as);
        assertThat(comms).hasSize(n + 1);
        for (int i = 0; i < as.size(); i++) {
            long trace = as.get(i).traceId();
            if (trace == n + 1000) {
                java.util.concurrent.CompletableFuture<Integer> refused = comms.get(i);
                assertThatThrownBy(() -> refused.get(5, java.util.concurrent.TimeUnit.SECONDS))
                        .hasCauseInstanceOf(RequestRefused.class)
                        .satisfies(e -> assertThat(((RequestRefused) e.getCause()).status()).isEqualTo(Wire.ENOENT));
            } else {
                assertThat(comms.get(i).get(5, java.util.concurrent.TimeUnit.SECONDS)).as("trace %d", trace)
                        .isEqualTo((int) trace * 2 + 1);
            }
        }
        assertThat(lab.server.counters().get("accept.ok")).isEqualTo(n);
        // Answered once: a second ACCEPT of the same trace is refused.
        assertThat(refusal(() -> a.accept(as.get(0)))).isEqualTo(Wire.ENOENT);

        // Events queued from another thread arrive complete and in order.
        for (int i = 1; i <= n; i++) {
            assertThat(lab.server.notify(la.owner(), new CmEvent(i, i * 2 + 1, CmEvent.Kind.ESTABLISHED, 0))).isTrue();
        }
        for (int i = 1; i <= n; i++) {
            CmEventInfo e = a.nextEvent(Duration.ofSeconds(5));
            assertThat(e).as("event %d", i).isNotNull();
            assertThat(e.traceId()).isEqualTo(i);
            assertThat(e.localCommId()).isEqualTo(i * 2 + 1);
        }
    }

    @Test
    void anOversizedRejectIsRefusedAndReachesNoOne() throws Exception {
        start();
        ControlClient a = lab.podClient(podA);
        a.listen(tcp("0.0.0.0", 7471));
        Listener la = lab.listener(l -> true);
        assertThat(lab.server.deliver(ControlLab.delivery(5, la, IP_A, 1))).isEqualTo(Consumers.Handover.TAKEN);
        assertThat(a.nextRequest(Duration.ofSeconds(5))).isNotNull();
        assertThat(refusal(() -> a.reject(new Rejection(5, 28, new byte[Wire.MAX_ARI + 1], null))))
                .isEqualTo(Wire.EMSGSIZE);
        assertThat(rejects).isEmpty();
    }

    private NetnsId uncheckedId(String ns) {
        try {
            return lab.id(ns);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    // ---- queries ----

    @Test
    void queriesAnswerTheHostAndRefusePodsWhichSeeOnlyTheirOwnListeners() throws Exception {
        List<ConsumerInfo> askers = new CopyOnWriteArrayList<>();
        start(ControlServer.Config.defaults(), (kind, args, caller) -> {
            askers.add(caller);
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("kind", kind.name());
            o.set("args", args);
            return o;
        });
        ControlClient host = lab.hostSocketClient(null);
        ObjectNode args = JsonNodeFactory.instance.objectNode().put("dst", IP_A);
        JsonNode answer = host.query(QueryKind.EXPLAIN, args);
        assertThat(answer.path("kind").asText()).isEqualTo("EXPLAIN");
        assertThat(answer.path("args").path("dst").asText()).isEqualTo(IP_A);
        assertThat(askers).extracting(ConsumerInfo::netns).containsExactly(lab.hostId());

        ControlClient a = lab.podClient(podA);
        ControlClient b = lab.podClient(podB);
        a.listen(tcp("0.0.0.0", 1));
        b.listen(tcp("0.0.0.0", 2));
        assertThat(refusal(() -> a.query(QueryKind.TOPOLOGY, null))).isEqualTo(Wire.EPERM);
        JsonNode mine = a.query(QueryKind.LISTENERS, null);
        assertThat(mine).hasSize(1);
        assertThat(mine.get(0).path("port").asInt()).isEqualTo(1);
        assertThat(host.query(QueryKind.LISTENERS, null)).hasSize(2);
        assertThat(askers).hasSize(1);

        // self describes only the asker, so a pod may ask it; the handler is told the pod's namespace, which the
        // kernel proved for the abstract socket it reached, whatever the arguments say
        ObjectNode claim = JsonNodeFactory.instance.objectNode().put("netns", lab.hostId().inode());
        assertThat(b.query(QueryKind.SELF, claim).path("kind").asText()).isEqualTo("SELF");
        assertThat(askers).hasSize(2);
        assertThat(askers.get(1).netns()).isEqualTo(lab.id(podB)).isNotEqualTo(lab.hostId());
    }

    @Test
    void hostileQueryJsonIsRefusedWithEinval() throws Exception {
        start(ControlServer.Config.defaults(), (kind, args, caller) -> args);
        ControlClient host = lab.hostSocketClient(null);
        List<String> hostile = List.of("[".repeat(5000) + "]".repeat(5000), "{\"a\":1,\"a\":2}",
                "{\"x\":\"" + "y".repeat(10_000) + "\"}",
                "{} trailing", "42", "{\"n\":" + "9".repeat(200) + "}", "\u0000\u0001");
        for (String h : hostile) {
            Frame r = host.call(Wire.QUERY, List.of(Messages.query(QueryKind.EXPLAIN),
                    Record.mandatory(Wire.R_JSON, h.getBytes(StandardCharsets.UTF_8))),
                    Duration.ofSeconds(5));
            assertThat(r.status()).as(h.length() > 40 ? h.substring(0, 40) : h).isEqualTo(Wire.EINVAL);
        }
        assertThat(host.query(QueryKind.EXPLAIN, JsonNodeFactory.instance.objectNode().put("ok", true)).path("ok")
                .asBoolean()).isTrue();
    }

    // ---- bad input ----

    @Test
    void badFramesGetAClearErrorOrAClosedConnectionAndTheServerCarriesOn() throws Exception {
        start(ControlServer.Config.defaults().withLimits(128, 1024, 4096, 4096, 300), null);

        // An unknown message type: a reply with EOPNOTSUPP, and the connection stays usable.
        ControlClient c = lab.podClient(podA);
        Frame unknown = c.call(0x42, List.of(), Duration.ofSeconds(5));
        assertThat(unknown.status()).isEqualTo(Wire.EOPNOTSUPP);
        assertThat(unknown.text()).contains("unknown message type");
        // A record whose length runs past the frame: EBADMSG for that frame, the stream stays in step.
        byte[] bad = FrameCodec.encode(Frame.of(Wire.LISTEN, 77, List.of(Messages.listenSpec(tcp("0.0.0.0", 1)))));
        ByteBuffer.wrap(bad).putInt(Wire.HEADER_SIZE + 4, 4096);
        sendRaw(c, bad);
        ControlLab.await("EBADMSG to be counted", () -> lab.server.counters().get("refused.EBADMSG") == 1);
        // A LISTEN without its record, and a record of the wrong size.
        assertThat(c.call(Wire.LISTEN, List.of(), Duration.ofSeconds(5)).status()).isEqualTo(Wire.EINVAL);
        assertThat(c.call(Wire.LISTEN, List.of(Record.mandatory(Wire.R_LISTEN_SPEC, new byte[3])),
                Duration.ofSeconds(5)).status())
                .isEqualTo(Wire.EBADMSG);
        assertThat(c.hello("still here").netns()).isEqualTo(lab.id(podA));

        // Another protocol version, a huge length, a length below the header: ERROR, then closed.
        byte[] v9 = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
        v9[0] = 9;
        expectClosed(v9, Wire.EPROTONOSUPPORT, "closed.bad-version");
        byte[] huge = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
        ByteBuffer.wrap(huge).putInt(8, Integer.MAX_VALUE);
        expectClosed(huge, Wire.EMSGSIZE, "closed.too-large");
        byte[] tiny = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
        ByteBuffer.wrap(tiny).putInt(8, 3);
        expectClosed(tiny, Wire.EBADMSG, "closed.bad-length");
        // Half a frame, then silence: closed after the stall limit (300 ms here).
        expectClosed(new byte[] {1, 1, 0}, Wire.EBADMSG, "closed.stalled-frame");

        // Random garbage on fresh connections never takes the server down.
        java.util.Random rnd = new java.util.Random(42);
        for (int i = 0; i < 30; i++) {
            byte[] junk = new byte[1 + rnd.nextInt(200)];
            rnd.nextBytes(junk);
            ControlClient j = lab.podClient(podB);
            sendRaw(j, junk);
            j.close();
        }
        assertThat(lab.podClient(podB).hello("after the storm").netns()).isEqualTo(lab.id(podB));
    }

    @Test
    void clientsThatConnectAndLeaveAtOnceNeverBreakTheIdentifyingWorkers() throws Exception {
        start();
        // Found by bench/NeighboursBench: a peer gone before a worker read its SO_PEERCRED made Netty throw
        // ChannelException ("Socket operation on non-socket") out of the worker.
        List<Throwable> escaped = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> escaped.add(e));
        try {
            for (int i = 0; i < 300; i++) {
                lab.hostSocketClient(null).close();
            }
            ControlLab.await("the connections to go", () -> lab.server.stats().connections() == 0);
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
        assertThat(escaped).isEmpty();
        assertThat(lab.hostSocketClient(null).hello("after them").netns()).isEqualTo(lab.hostId());
    }

    @Test
    void theErrorReachesAClientStillWritingWhenTheDaemonGivesUpOnIt() throws Exception {
        start();
        // A bad version, then a megabyte the daemon never reads: more than the socket holds, so the
        // client is mid-write when the ERROR comes. Closing on it would reset the client's write,
        // and the client would close before it read the ERROR.
        ControlClient c = lab.podClient(podA);
        byte[] v9 = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
        v9[0] = 9;
        byte[] bytes = java.util.Arrays.copyOf(v9, 1 << 20);
        c.channel().writeAndFlush(Unpooled.wrappedBuffer(bytes));
        ControlLab.await("the connection to close", () -> !c.isOpen());
        assertThat(c.error()).as("an ERROR before the close").isNotNull();
        assertThat(c.error().status()).isEqualTo(Wire.EPROTONOSUPPORT);
        assertThat(lab.server.counters().get("closed.bad-version")).isEqualTo(1);
        ControlLab.await("the daemon to close its side", () -> lab.server.stats().connections() == 0);
    }

    @Test
    void aRefusedClientReadsTheErrorThenEndOfStreamWhileTheDaemonStillReads() throws Exception {
        start();
        // A plain socket, which closes only when told: the ERROR, then the daemon's half-close (EOF), and the
        // connection still held on the daemon's side, reading, until this side closes or the linger ends.
        try (java.nio.channels.SocketChannel raw = rawHostConnection()) {
            byte[] v9 = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
            v9[0] = 9;
            raw.write(ByteBuffer.wrap(v9));
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            ByteBuffer b = ByteBuffer.allocate(4096);
            for (int n; (n = raw.read(b.clear())) >= 0; ) {
                got.write(b.array(), 0, n);
            }
            Frame error = FrameCodec.decode(got.toByteArray(), Wire.MAX_REPLY_FRAME);
            assertThat(error.type()).isEqualTo(Wire.ERROR);
            assertThat(error.status()).isEqualTo(Wire.EPROTONOSUPPORT);
            assertThat(lab.server.stats().connections()).as("the daemon's side, lingering after its EOF").isEqualTo(1);
        }
        ControlLab.await("the daemon to close its side once this one has", () -> lab.server.stats().connections() == 0);
    }

    @Test
    void aPipelinedBurstIsAnsweredWholeAndInOrderInTurnsOfItsOwn() throws Exception {
        start();
        int n = 5_000;
        try (java.nio.channels.SocketChannel raw = rawHostConnection()) {
            writeHellos(raw, n);
            assertThat(readReplySeqs(raw, n)).as("every HELLO answered once, in order")
                    .containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, n).boxed().toList());
        }
        assertThat(lab.server.counters().get("read.over-budget"))
                .as("turns that ended at the budget with frames left").isGreaterThanOrEqualTo(n / 64 - 1);
    }

    @Test
    void aBurstFromAPeerThatReadsItsRepliesLateIsAnsweredWholeOnceItReads() throws Exception {
        start();
        // More replies than the socket and the write buffer's high mark hold: the daemon stops reading for the
        // budget and for back-pressure, both, and must read again when the peer drains its replies.
        int n = 30_000;
        try (java.nio.channels.SocketChannel raw = rawHostConnection()) {
            Thread writer = new Thread(() -> {
                try {
                    writeHellos(raw, n);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            writer.start();
            ControlLab.await("the daemon to stop reading the peer that does not read",
                    () -> lab.server.counters().get("read.over-budget") > 0);
            Thread.sleep(500);
            assertThat(readReplySeqs(raw, n)).as("every HELLO answered once, in order")
                    .containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, n).boxed().toList());
            writer.join(10_000);
            assertThat(writer.isAlive()).isFalse();
        }
    }

    /** A plain blocking socket on the host socket: it reads, writes and closes only when the test says so. */
    private java.nio.channels.SocketChannel rawHostConnection() throws IOException {
        java.nio.channels.SocketChannel raw = java.nio.channels.SocketChannel.open(
                java.net.StandardProtocolFamily.UNIX);
        raw.connect(java.net.UnixDomainSocketAddress.of(lab.hostSocket));
        return raw;
    }

    private static void writeHellos(java.nio.channels.SocketChannel raw, int n) throws IOException {
        java.io.ByteArrayOutputStream burst = new java.io.ByteArrayOutputStream();
        for (int seq = 1; seq <= n; seq++) {
            burst.writeBytes(FrameCodec.encode(Frame.of(Wire.HELLO, seq, List.of())));
        }
        ByteBuffer b = ByteBuffer.wrap(burst.toByteArray());
        while (b.hasRemaining()) {
            raw.write(b);
        }
    }

    /** The seqs of the next n replies, each of which must be an OK; what came within 30 s if not all did. */
    private static List<Integer> readReplySeqs(java.nio.channels.SocketChannel raw, int n) throws IOException {
        List<Integer> seqs = new ArrayList<>();
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(30_000);
                raw.close(); // the blocked read ends, and the caller's assertion says what is missing
            } catch (InterruptedException | IOException e) {
                // all read in time
            }
        });
        watchdog.setDaemon(true);
        watchdog.start();
        try {
            readReplySeqs(raw, n, seqs);
        } catch (java.nio.channels.AsynchronousCloseException e) {
            // the watchdog's
        } finally {
            watchdog.interrupt();
        }
        return seqs;
    }

    private static void readReplySeqs(java.nio.channels.SocketChannel raw, int n, List<Integer> seqs)
            throws IOException {
        ByteBuffer header = ByteBuffer.allocate(Wire.HEADER_SIZE);
        while (seqs.size() < n) {
            header.clear();
            while (header.hasRemaining()) {
                if (raw.read(header) < 0) {
                    return; // closed early: the caller's assertion says what is missing
                }
            }
            ByteBuffer frame = ByteBuffer.allocate(header.getInt(8));
            frame.put(header.array());
            while (frame.hasRemaining()) {
                if (raw.read(frame) < 0) {
                    return;
                }
            }
            Frame f;
            try {
                f = FrameCodec.decode(frame.array(), Wire.MAX_REPLY_FRAME);
            } catch (io.cmdemux.control.protocol.ProtocolException e) {
                throw new AssertionError("a reply that does not decode", e);
            }
            assertThat(f.status()).as("reply to seq %d", f.seq()).isEqualTo(Wire.OK);
            seqs.add(f.seq());
        }
    }

    private void expectClosed(byte[] bytes, int status, String counter) throws IOException {
        ControlClient c = lab.podClient(podA);
        sendRaw(c, bytes);
        ControlLab.await(counter, () -> !c.isOpen());
        assertThat(c.error()).as("an ERROR before the close").isNotNull();
        assertThat(c.error().status()).isEqualTo(status);
        assertThat(lab.server.counters().get(counter)).isEqualTo(1);
    }

    private static void sendRaw(ControlClient c, byte[] bytes) {
        c.channel().writeAndFlush(Unpooled.wrappedBuffer(bytes)).awaitUninterruptibly(2000);
    }

    // ---- resources ----

    @Test
    void aNamespaceHoldsAtMostItsLimitOfConnectionsAndGetsASlotBackForEachThatLeaves() throws Exception {
        start(ControlServer.Config.defaults().withLimits(3, 1024, 4096, 4096, 10_000), null);
        NetnsId a = lab.id(podA);
        NetnsId b = lab.id(podB);
        List<ControlClient> inA = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ControlClient c = lab.podClient(podA);
            c.hello("a" + i);
            inA.add(c);
        }
        expectCutForTooManyConnections(1);
        // Each namespace has slots of its own: A's full share takes none of B's or the host's.
        lab.podClient(podB).hello("b");
        lab.hostSocketClient(null).hello("host");
        assertThat(lab.server.stats().consumersPerNamespace())
                .isEqualTo(java.util.Map.of(a, 3, b, 1, lab.hostId(), 1));
        inA.remove(0).close();
        inA.remove(0).close();
        ControlLab.await("two of A's slots to come back",
                () -> lab.server.stats().consumersPerNamespace().get(a) == 1);
        for (int i = 0; i < 2; i++) {
            lab.podClient(podA).hello("again" + i);
        }
        expectCutForTooManyConnections(2);
        assertThat(lab.server.stats().consumersPerNamespace().get(a)).isEqualTo(3);
    }

    @Test
    void aConnectionBeyondTheLimitIsRefusedWhileTheServingLoopIsBusy() throws Exception {
        // One serving loop, held busy: the refusal must come from the accept loop alone (issue 20 §4: a pod's
        // thousand connections beyond its limit cost the loops that deliver requests nothing).
        start(ControlServer.Config.defaults().withEventLoopThreads(1).withLimits(1, 1024, 4096, 4096, 10_000), null);
        ControlClient first = lab.podClient(podA);
        long id = first.hello("first").consumerId();
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        lab.server.connection(id).channel.eventLoop().execute(() -> {
            held.countDown();
            try {
                busy.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(held.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        try {
            expectCutForTooManyConnections(1);
        } finally {
            busy.countDown();
        }
        assertThat(lab.server.stats().consumersPerNamespace().get(lab.id(podA))).isEqualTo(1);
        first.close();
        ControlLab.await("A's slot to come back", () -> lab.server.stats().consumersPerNamespace().isEmpty());
        lab.podClient(podA).hello("second");
    }

    private void expectCutForTooManyConnections(long times) throws IOException {
        ControlClient over = lab.podClient(podA);
        ControlLab.await("a connection beyond the namespace's limit to be cut", () -> !over.isOpen());
        assertThat(over.error()).as("an ERROR before the close").isNotNull();
        assertThat(over.error().status()).isEqualTo(Wire.EAGAIN);
        assertThat(lab.server.counters().get("closed.too-many-connections")).isEqualTo(times);
    }

    @Test
    void theFdCountStaysFlatAcross200ConnectDisconnectCycles() throws Exception {
        start();
        List<ControlClient> warm = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            warm.add(cycle());
        }
        ControlLab.await("warm-up connections to close", () -> lab.server.stats().connections() == 0);
        int before = ControlLab.openFds();
        for (int i = 0; i < 200; i++) {
            cycle();
        }
        ControlLab.await("all connections to close", () -> lab.server.stats().connections() == 0);
        ControlLab.await("the fd count to settle at " + before, () -> {
            try {
                return ControlLab.openFds() <= before;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertThat(lab.server.listeners().all()).isEmpty();
    }

    @Test
    void aConsumerThatClosesAndListensAgainFindsItsPortFreeBeforeItsOldLoopHasReadTheClose() throws Exception {
        start(ControlServer.Config.defaults().withEventLoopThreads(2), null);
        ControlClient old = lab.podClient(podA);
        long oldId = old.hello("old").consumerId();
        old.listen(tcp(IP_A, 7471));
        EventLoop oldLoop = lab.server.connection(oldId).channel.eventLoop();
        ControlClient next = null;
        long nextId = -1;
        for (int i = 0; i < 8 && next == null; i++) {
            ControlClient c = lab.podClient(podA);
            long id = c.hello("next").consumerId();
            if (lab.server.connection(id).channel.eventLoop() != oldLoop) {
                next = c;
                nextId = id;
            }
        }
        assertThat(next).as("a connection on the other of the two event loops").isNotNull();
        // The old connection's loop stays busy until the new LISTEN has its answer, so it cannot have read the close.
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        oldLoop.execute(() -> {
            stalled.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(stalled.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            old.close();
            assertThat(lab.server.connection(oldId)).as("the old connection is still live to the daemon").isNotNull();
            ListenerInfo again = next.listen(tcp(IP_A, 7471));
            assertThat(lab.server.listeners().all()).extracting(Listener::bindOrder)
                    .containsExactly(again.listenerId());
            assertThat(lab.server.counters().get("listen.freed-by-hung-up-peer")).isEqualTo(1);
        } finally {
            release.countDown();
        }
        final long stays = nextId;
        ControlLab.await("the old connection's close to be read", () -> lab.server.connection(oldId) == null);
        assertThat(lab.server.listeners().all()).extracting(Listener::owner)
                .containsExactly(ListenerRegistry.owner(stays));
        // A live owner keeps its port.
        assertThat(refusal(() -> lab.podClient(podA).listen(tcp(IP_A, 7471)))).isEqualTo(Wire.EADDRINUSE);
        assertThat(lab.server.counters().get("listen.freed-by-hung-up-peer")).isEqualTo(1);
    }

    private ControlClient cycle() throws IOException, RequestRefused {
        ControlClient c = ControlClient.connect(ControlClient.abstractAddress(lab.abstractName), Duration.ofSeconds(5),
                lab.clientGroup,
                () -> lab.executor.call("/run/netns/" + podA, io.netty.channel.epoll.EpollDomainSocketChannel::new));
        c.listen(tcp(IP_A, 7471));
        c.close();
        return c;
    }

    // ---- the host socket file ----

    @Test
    void theHostSocketIsMode0660AndASecondDaemonCannotStealIt() throws Exception {
        start();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(lab.hostSocket))).isEqualTo("rw-rw----");
        try (ControlServer second = new ControlServer(ControlServer.Config.defaults().withHostSocket(lab.hostSocket)
                .withAbstractName(lab.abstractName + "x"), lab.watcher::current, lab.executor, null)) {
            assertThatThrownBy(second::start).isInstanceOf(IOException.class)
                    .hasMessageContaining("another cmdemux daemon");
        }
        assertThat(lab.hostSocketClient(null).hello("still mine").via()).isEqualTo(Via.HOST_SOCKET);
        lab.server.close();
        assertThat(lab.hostSocket).as("the socket file goes with the daemon").doesNotExist();
    }
}
