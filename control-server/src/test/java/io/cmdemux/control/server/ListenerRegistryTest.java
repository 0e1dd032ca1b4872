package io.cmdemux.control.server;

import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.InetAddresses;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.Test;

/**
 * LISTEN's rules, checked against cma.c (rdma_bind_addr, cma_check_linklocal, cma_check_port)
 * and addr.c (rdma_translate_ip), on a topology with two pods.
 */
class ListenerRegistryTest {
    private final DumpBuilder b = new DumpBuilder();
    private final NetnsId host = b.host();
    private final NetnsId podA = b.pod("podA", 1);
    private final NetnsId podB = b.pod("podB", 2);
    private final TopologySnapshot topo;
    private final ListenerRegistry reg = new ListenerRegistry(8, 12);
    // The consumers whose peers have closed, though their event loops have not read it yet.
    private final Set<Long> hungUp = new HashSet<>();
    private final List<Long> asked = new ArrayList<>();

    ListenerRegistryTest() {
        b.link(host, 1, "lo").add();
        b.link(podA, 1, "lo").add();
        b.link(podA, 2, "eth0").add();
        b.addr(podA, 2, "10.1.0.2/24");
        b.addr(podA, 2, "fd00::2/64");
        b.addr(podA, 2, "fe80::2/64");
        b.link(podB, 1, "lo").add();
        b.link(podB, 2, "eth0").add();
        b.addr(podB, 2, "10.1.0.3/24");
        topo = b.snapshot(1);
    }

    private NetnsState ns(NetnsId id) {
        return topo.namespace(id);
    }

    private static ListenSpec spec(String ip, int port) {
        return ListenSpec.of(PortSpace.TCP, InetAddresses.parse(ip), port);
    }

    private Listener listen(long consumer, NetnsId where, ListenSpec s) throws RequestRefused {
        return reg.listen(consumer, where, ns(where), s, id -> {
            asked.add(id);
            return hungUp.contains(id);
        });
    }

    private static void refused(ThrowableAssert.ThrowingCallable call, int errno) {
        assertThatThrownBy(call).isInstanceOf(RequestRefused.class)
                .satisfies(e -> assertThat(((RequestRefused) e).status())
                .as(((RequestRefused) e).getMessage()).isEqualTo(errno));
    }

    @Test
    void anAddressOfAnotherPodIsNotAvailable() {
        refused(() -> listen(1, podA, spec("10.1.0.3", 7471)), Wire.EADDRNOTAVAIL);
        assertThat(reg.table().all()).isEmpty();
    }

    @Test
    void ownAddressesAndWildcardsAreAvailable() throws RequestRefused {
        assertThat(listen(1, podA, spec("10.1.0.2", 7471)).netns()).isEqualTo(podA);
        assertThat(listen(2, podB, spec("10.1.0.3", 7471)).netns()).isEqualTo(podB);
        assertThat(listen(3, podB, spec("0.0.0.0", 7472)).anyAddress()).isTrue();
    }

    @Test
    void anAddressIsRefusedWhileTheNamespaceIsNotInTheTopologyYet() {
        refused(() -> reg.listen(1, podA, null, spec("10.1.0.2", 1), id -> false), Wire.EAGAIN);
    }

    @Test
    void theSameAddressAndPortTwiceIsInUse() throws RequestRefused {
        listen(1, podA, spec("10.1.0.2", 7471));
        refused(() -> listen(2, podA, spec("10.1.0.2", 7471)), Wire.EADDRINUSE);
    }

    @Test
    void aConsumerWhosePeerHasHungUpLosesItsListenersToTheNextThatConflicts() throws RequestRefused {
        Listener old = listen(1, podA, spec("10.1.0.2", 7471));
        listen(1, podA, spec("10.1.0.2", 7472));
        listen(2, podA, spec("10.1.0.2", 7473));
        refused(() -> listen(3, podA, spec("10.1.0.2", 7471)), Wire.EADDRINUSE);
        assertThat(asked).as("only the owner of the bind list is asked").containsExactly(1L);
        hungUp.add(1L);
        Listener taken = listen(3, podA, spec("10.1.0.2", 7471));
        assertThat(taken.bindOrder()).isGreaterThan(old.bindOrder());
        assertThat(reg.table().all()).as("consumer 1's other listener went with it; consumer 2's stayed")
                .extracting(Listener::port).containsExactlyInAnyOrder(7471, 7473);
        assertThat(reg.ownerOf(old.bindOrder())).isEqualTo(-1);
        assertThat(reg.dropConsumer(1)).as("its own loop's close finds nothing left").isZero();
        assertThat(reg.table().all()).extracting(Listener::port).containsExactlyInAnyOrder(7471, 7473);
        // The namespace's count was given back: 12 in all, 2 held.
        for (int port = 8000; port < 8010; port++) {
            listen(10 + port % 2, podA, spec("10.1.0.2", port));
        }
    }

    @Test
    void aDeliveryLearnsAListenersOwnerWhileAListenHoldsTheLock() throws Exception {
        Listener held = listen(1, podA, spec("10.1.0.2", 7471));
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            // A conflicting LISTEN asks whether the owner hung up with the lock held: here the asking waits.
            Future<?> listening = pool.submit(() -> reg.listen(2, podA, ns(podA), spec("10.1.0.2", 7471), id -> {
                inside.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return false;
            }));
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            Future<Long> owner = pool.submit(() -> reg.ownerOf(held.bindOrder()));
            assertThat(owner.get(10, TimeUnit.SECONDS)).as("answered with the lock held elsewhere").isEqualTo(1L);
            release.countDown();
            assertThatThrownBy(() -> listening.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(RequestRefused.class);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void aHungUpOwnerOfAWildcardGivesItsPortUpToo() throws RequestRefused {
        listen(1, podA, spec("0.0.0.0", 7471));
        hungUp.add(1L);
        assertThat(listen(2, podA, spec("10.1.0.2", 7471)).owner()).isEqualTo(ListenerRegistry.owner(2));
    }

    @Test
    void aWildcardSharesItsPortWithNoOneLikeCmaCheckPort() throws RequestRefused {
        listen(1, podA, spec("10.1.0.2", 7471));
        refused(() -> listen(2, podA, spec("0.0.0.0", 7471)), Wire.EADDRNOTAVAIL);
        listen(3, podA, spec("0.0.0.0", 7472));
        refused(() -> listen(4, podA, spec("10.1.0.2", 7472)), Wire.EADDRNOTAVAIL);
    }

    @Test
    void zeronetAndLoopbackAreWildcardsToo() throws RequestRefused {
        listen(1, podA, spec("127.0.0.1", 7471));
        refused(() -> listen(2, podA, spec("10.1.0.2", 7471)), Wire.EADDRNOTAVAIL);
        Listener z = listen(3, podA, spec("0.1.2.3", 7473));
        assertThat(z.anyAddress()).as("recorded as 0.0.0.0 so that the resolver agrees").isTrue();
    }

    @Test
    void differentSpecificAddressesShareAPort() throws RequestRefused {
        listen(1, podA, spec("10.1.0.2", 7471));
        listen(1, podA, spec("fd00::2", 7471));
        assertThat(reg.table().bindList(podA, PortSpace.TCP, 7471)).hasSize(2);
    }

    @Test
    void ipv4AndIpv6WildcardsClashUnlessTheIpv6OneIsAfonly() throws RequestRefused {
        listen(1, podA, spec("0.0.0.0", 7471));
        refused(() -> listen(2, podA, spec("::", 7471)), Wire.EADDRNOTAVAIL);
        Listener v6 = listen(2, podA, spec("::", 7471).withAfonly(true));
        assertThat(v6.afonly()).isTrue();
    }

    @Test
    void anIpv4ListenerIsAfonlyByDefaultAndAnIpv6OneIsNot() throws RequestRefused {
        assertThat(listen(1, podA, spec("0.0.0.0", 1)).afonly()).isTrue();
        assertThat(listen(1, podA, spec("::", 2)).afonly()).isFalse();
        assertThat(listen(1, podA, spec("0.0.0.0", 3).withAfonly(false)).afonly()).isFalse();
    }

    @Test
    void namespacesAndPortSpacesHaveTheirOwnBindLists() throws RequestRefused {
        listen(1, podA, spec("0.0.0.0", 7471));
        listen(2, podB, spec("0.0.0.0", 7471));
        listen(3, podA, ListenSpec.of(PortSpace.UDP, InetAddresses.parse("0.0.0.0"), 7471));
        assertThat(reg.table().all()).hasSize(3);
    }

    @Test
    void anIpv6LinkLocalAddressNeedsItsScope() throws RequestRefused {
        refused(() -> listen(1, podA, spec("fe80::2", 7471)), Wire.EINVAL);
        refused(() -> listen(1, podA, spec("fe80::2", 7471).withBoundIfindex(9)), Wire.ENODEV);
        refused(() -> listen(1, podA, spec("fe80::9", 7471).withBoundIfindex(2)), Wire.EADDRNOTAVAIL);
        Listener l = listen(1, podA, spec("fe80::2", 7471).withBoundIfindex(2));
        assertThat(l.boundIfindex()).isEqualTo(2);
        refused(() -> listen(2, podA, spec("fe80::2", 7471).withBoundIfindex(2)), Wire.EADDRINUSE);
    }

    @Test
    void aScopeOnAGlobalAddressIsIgnoredAsTheKernelDoes() throws RequestRefused {
        assertThat(listen(1, podA, spec("10.1.0.2", 7471).withBoundIfindex(2)).boundIfindex()).isZero();
    }

    @Test
    void portZeroTakesAnEphemeralPortFromTheKernelRange() throws RequestRefused {
        Listener l = listen(1, podA, spec("0.0.0.0", 0));
        assertThat(l.port()).isBetween(ListenerRegistry.EPHEMERAL_LOW, ListenerRegistry.EPHEMERAL_HIGH);
    }

    @Test
    void everyListenBindsLaterThanTheOneBefore() throws RequestRefused {
        long a = listen(1, podA, spec("10.1.0.2", 1)).bindOrder();
        long b2 = listen(2, podB, spec("10.1.0.3", 1)).bindOrder();
        long c = listen(1, podA, spec("fd00::2", 1)).bindOrder();
        assertThat(a).isLessThan(b2);
        assertThat(b2).isLessThan(c);
    }

    @Test
    void onlyTheOwnerCanUnlisten() throws RequestRefused {
        Listener l = listen(1, podA, spec("10.1.0.2", 7471));
        refused(() -> reg.unlisten(2, l.bindOrder()), Wire.ENOENT);
        refused(() -> reg.unlisten(1, 999), Wire.ENOENT);
        long before = reg.table().generation();
        reg.unlisten(1, l.bindOrder());
        assertThat(reg.table().all()).isEmpty();
        assertThat(reg.table().generation()).isGreaterThan(before);
        assertThat(reg.ownerOf(l.bindOrder())).isEqualTo(-1);
    }

    @Test
    void aConsumersListenersVanishTogetherInOneNewGeneration() throws RequestRefused {
        listen(1, podA, spec("10.1.0.2", 1));
        listen(1, podA, spec("10.1.0.2", 2));
        Listener other = listen(2, podB, spec("10.1.0.3", 1));
        long before = reg.table().generation();
        assertThat(reg.dropConsumer(1)).isEqualTo(2);
        ListenerTable t = reg.table();
        assertThat(t.all()).containsExactly(other);
        assertThat(t.generation()).isEqualTo(before + 1);
        assertThat(reg.dropConsumer(1)).isZero();
        assertThat(reg.table().generation()).isEqualTo(before + 1);
    }

    @Test
    void aConsumerHasALimitOfListeners() throws RequestRefused {
        for (int p = 1; p <= 8; p++) {
            listen(1, podA, spec("0.0.0.0", p));
        }
        refused(() -> listen(1, podA, spec("0.0.0.0", 9)), Wire.ENOSPC);
    }

    @Test
    void aNamespaceHasALimitOfListenersWhoeverAsks() throws RequestRefused {
        for (int p = 1; p <= 8; p++) {
            listen(1, podA, spec("0.0.0.0", p));
        }
        for (int p = 9; p <= 12; p++) {
            listen(2, podA, spec("0.0.0.0", p));
        }
        refused(() -> listen(3, podA, spec("0.0.0.0", 13)), Wire.ENOSPC);
        listen(3, podB, spec("0.0.0.0", 13));
        reg.dropConsumer(1);
        listen(3, podA, spec("0.0.0.0", 13));
        Listener l = listen(3, podA, spec("0.0.0.0", 14));
        reg.unlisten(3, l.bindOrder());
        listen(2, podA, spec("0.0.0.0", 15));
    }

    @Test
    void theListenerCarriesItsConsumerAsOwner() throws RequestRefused {
        Listener l = listen(7, podA, spec("10.1.0.2", 1));
        assertThat(l.owner()).isEqualTo("consumer-7");
        assertThat(reg.ownerOf(l.bindOrder())).isEqualTo(7);
    }
}
