package io.cmdemux.pathrecord;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.pathrecord.policy.PolicyFile;
import io.cmdemux.pathrecord.source.PathSource;
import io.cmdemux.pathrecord.source.StaticPathSource;
import io.cmdemux.pathrecord.testkit.IbHost;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The cache key, expiry and invalidation rules of issue 9 (and ibacm's lessons). */
class PathCacheTest {
    static final Gid PEER = Gid.parse("fe80::2:c903:0:77");
    final IbHost host = new IbHost();
    final AtomicInteger asked = new AtomicInteger();
    final StaticPathSource fixture = ResponderTest.fabric();
    final PathSource counting = new PathSource() {
        @Override
        public String name() {
            return "static";
        }

        @Override
        public CompletableFuture<PathRecord> resolve(PathQuery q) {
            asked.incrementAndGet();
            return fixture.resolve(q);
        }
    };

    PathResolver resolver(PathCache cache) {
        return new PathResolver(() -> host.state(1),
                PolicyFile.parse(
                        "{\"rules\":[{\"name\":\"a\",\"match\":{\"netns\":\"podA\"},\"action\":{\"sl\":7}}]}", 1),
                counting, cache);
    }

    static PathQuery q(int pkey) {
        return PathQuery.of(IbHost.DEV, 1, IbHost.PORT_GID, PEER).withPkey(pkey);
    }

    @Test
    void theSecondQueryIsServedFromTheCacheAndTheSourceIsAskedOnce() {
        PathResolver r = resolver(new PathCache(100, Duration.ofMinutes(5), 0));
        PathResolver.Result first = r.resolve(q(0xffff)).join();
        PathResolver.Result second = r.resolve(q(0xffff)).join();
        assertThat(first.source()).isEqualTo("static");
        assertThat(second.source()).isEqualTo("cache");
        assertThat(second.answer().paths().primary()).isEqualTo(first.answer().paths().primary());
        assertThat(asked).hasValue(1);
        assertThat(r.cache().stats().hits()).isEqualTo(1);
        assertThat(r.cache().stats().misses()).isEqualTo(1);
    }

    @Test
    void pkeysAreComparedAsLogicalPartitions() {
        PathResolver r = resolver(new PathCache(100, Duration.ofMinutes(5), 0));
        r.resolve(q(0x8001)).join();
        assertThat(r.resolve(q(0x0001)).join().cached()).as("limited member of the same partition").isTrue();
        assertThat(r.resolve(q(0x8002)).join().cached()).as("another partition").isFalse();
        assertThat(PathCache.Key.of(q(0x8001), 1)).isEqualTo(PathCache.Key.of(q(0x0001), 1));
    }

    @Test
    void aPolicyReloadMakesEveryCachedAnswerUnreachable() {
        PathResolver r = resolver(new PathCache(100, Duration.ofMinutes(5), 0));
        assertThat(r.resolve(q(0x8001)).join().answer().paths().primary().sl()).isEqualTo(7);
        r.setPolicy(PolicyFile.parse(
                "{\"rules\":[{\"name\":\"a\",\"match\":{\"netns\":\"podA\"},\"action\":{\"sl\":2}}]}", 2));
        PathResolver.Result after = r.resolve(q(0x8001)).join();
        assertThat(after.cached()).isFalse();
        assertThat(after.answer().paths().primary().sl()).isEqualTo(2);
    }

    @Test
    void aMissingPathIsNotRemembered() {
        PathResolver r = resolver(new PathCache(100, Duration.ofMinutes(5), 0));
        PathQuery unreachable = PathQuery.of(IbHost.DEV, 1, IbHost.PORT_GID, Gid.parse("fe80::2:c903:0:55"));
        assertThat(r.resolve(unreachable).join().answer().kind()).isEqualTo(Answer.Kind.NO_PATH);
        assertThat(r.resolve(unreachable).join().cached()).isFalse();
        assertThat(asked).hasValue(2);
    }

    @Test
    void answersExpireAfterTheConfiguredNumberOfPacketLifetimes() throws Exception {
        // Static records carry the configured packet lifetime; 8 is 4.096 µs · 2^8 ≈ 1 ms.
        PathSource shortLived = new PathSource() {
            @Override
            public String name() {
                return "static";
            }

            @Override
            public CompletableFuture<PathRecord> resolve(PathQuery q) {
                asked.incrementAndGet();
                return new StaticPathSource(fixture.file(), 8, "fixture").resolve(q);
            }
        };
        PathResolver r = new PathResolver(() -> host.state(1), io.cmdemux.pathrecord.policy.Policy.empty(), shortLived,
                new PathCache(100, Duration.ofMinutes(5), 2));
        r.resolve(q(0xffff)).join();
        Thread.sleep(30);
        assertThat(r.resolve(q(0xffff)).join().cached()).isFalse();
        PathResolver longLived = new PathResolver(() -> host.state(1), io.cmdemux.pathrecord.policy.Policy.empty(),
                shortLived, new PathCache(100, Duration.ofMinutes(5), 0));
        longLived.resolve(q(0xffff)).join();
        Thread.sleep(30);
        assertThat(longLived.resolve(q(0xffff)).join().cached()).isTrue();
    }

    @Test
    void removingAnAddressFlushesTheCacheAndAddingOneDoesNot() {
        PathCache cache = new PathCache(100, Duration.ofMinutes(5), 0);
        PathResolver r = resolver(cache);
        TopologySnapshot before = host.b.snapshot(1);
        r.resolve(q(0x8001)).join();

        IbHost grown = new IbHost();
        grown.b.addr(grown.podA, 10, "192.168.1.99/24");
        assertThat(cache.onTopologyChange(before, grown.b.snapshot(2))).isFalse();
        assertThat(r.resolve(q(0x8001)).join().cached()).isTrue();

        assertThat(cache.onTopologyChange(grown.b.snapshot(2), before)).isTrue();
        assertThat(PathCache.removalOrMove(grown.b.snapshot(2), before)).contains("192.168.1.99").contains("removed");
        assertThat(r.resolve(q(0x8001)).join().cached()).isFalse();
    }

    @Test
    void aLinkThatMovesToAnotherNamespaceFlushesTheCache() {
        // The same child, now in podB: a namespace move gives it a new (namespace, ifindex).
        io.cmdemux.namespaces.testkit.DumpBuilder b = new io.cmdemux.namespaces.testkit.DumpBuilder();
        var hostNs = b.host();
        var podA = b.pod("podA", 0);
        b.pod("podB", 1);
        b.link(hostNs, 3, "ib0").ipoib(0xffff, IbHost.PORT_GID_TEXT, 0x48).add();
        b.link(podA, 10, "ib0.8001").ipoib(0x8001, IbHost.PORT_GID_TEXT, 0x49).parent(3, 0).add();
        TopologySnapshot before = b.snapshot(1);
        io.cmdemux.namespaces.testkit.DumpBuilder b2 = new io.cmdemux.namespaces.testkit.DumpBuilder();
        var hostNs2 = b2.host();
        b2.pod("podA", 0);
        var podB2 = b2.pod("podB", 1);
        b2.link(hostNs2, 3, "ib0").ipoib(0xffff, IbHost.PORT_GID_TEXT, 0x48).add();
        b2.link(podB2, 10, "ib0.8001").ipoib(0x8001, IbHost.PORT_GID_TEXT, 0x49).parent(3, 0).add();
        assertThat(PathCache.removalOrMove(before, b2.snapshot(2))).contains("ib0.8001@podA");
    }
}
