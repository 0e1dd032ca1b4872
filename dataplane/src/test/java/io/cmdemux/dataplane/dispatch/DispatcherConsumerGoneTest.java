package io.cmdemux.dataplane.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.dataplane.cm.Sessions;
import io.cmdemux.dataplane.consumer.CmEvent;
import io.cmdemux.dataplane.consumer.NoConsumers;
import io.cmdemux.dataplane.metrics.Metrics;
import io.cmdemux.dataplane.pipeline.DecisionLog;
import io.cmdemux.dataplane.pipeline.Pipeline;
import io.cmdemux.dataplane.reply.RejLimiter;
import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.PkeyTable;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.DecisionCache;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.LinkInfo;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A consumer that leaves while a request is being handed to it: its leaving rejects what it had not answered
 * (REJ 28, Sessions), the hand-over then fails, and the requester must still get one REJ, not two. Found by
 * scripts/soak's wire log (a comm ID answered twice while pod3's consumer came and went, 2026-12-03).
 */
class DispatcherConsumerGoneTest {
    private static final String OWNER = "consumer-1";

    /** A consumer that leaves during the hand-over when {@code leaveDuringHandover}, and refuses it. */
    static final class LeavingConsumers extends NoConsumers {
        ListenerTable listeners;
        Consumer<String> gone = o -> {};
        boolean leaveDuringHandover;

        @Override
        public ListenerTable listeners() {
            return listeners;
        }

        @Override
        public Handover deliver(Delivery d) {
            if (leaveDuringHandover) {
                gone.accept(d.listener().owner());
            }
            return Handover.GONE;
        }

        @Override
        public void onConsumerGone(Consumer<String> handler) {
            gone = handler;
        }

        @Override
        public boolean notify(String owner, CmEvent event) {
            return true;
        }
    }

    private static List<CmRej> rejsFor(boolean leaveDuringHandover) throws Exception {
        DumpBuilder b = new DumpBuilder();
        NetnsId host = b.host();
        b.link(host, 2, "up0").add();
        NetnsId pod = b.pod("pod1", 1);
        b.link(pod, 10, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).add().addr(pod, 10, "10.99.0.11/24");
        List<GidEntry> gids = List.of(
                new GidEntry(0, Gid.parse("fe80::ff:fe00:2"), GidType.ROCE_V2, new LinkRef(host, 2),
                        OptionalInt.empty()),
                new GidEntry(1, Gid.parse("10.99.0.11"), GidType.ROCE_V2, new LinkRef(pod, 10), OptionalInt.empty()));
        RdmaPort port = new RdmaPort(1, RdmaPort.LinkLayer.ETHERNET, "ACTIVE", 0, List.of(), gids,
                new PkeyTable(List.of(0xffff)), new LinkRef(host, 2), List.of());
        ListenerTable table = new ListenerTable(1, List.of(new Listener(pod, PortSpace.TCP, 7471,
                InetAddresses.parse("0.0.0.0"), false, 0, 1, null, OWNER)));
        HostState state = new HostState(b.snapshot(1), new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED,
                List.of(new RdmaDevice("rxe0", 0, true, null, List.of(port)))), table);
        LeavingConsumers consumers = new LeavingConsumers();
        consumers.listeners = table;
        consumers.leaveDuringHandover = leaveDuringHandover;
        Metrics metrics = new Metrics();
        RejLimiter limiter = new RejLimiter(1000);
        Sessions sessions = new Sessions(Sessions.Config.defaults(), consumers, metrics, 0x0200000000000002L);
        Dispatcher dispatcher = new Dispatcher(consumers, metrics, limiter, Duration.ofSeconds(60), sessions);
        Pipeline pipeline = new Pipeline(() -> state, new DecisionCache(100), ResolverMode.KERNEL, true, dispatcher,
                sessions, limiter, metrics, new DecisionLog(10));
        InetAddress src = InetAddresses.parse("10.99.0.99");
        InetAddress dst = InetAddresses.parse("10.99.0.11");
        byte[] req = RoceFrameBuilder.cmFrame(new L2Header(HwAddr.parse("02:99:00:00:00:01"),
                HwAddr.parse("02:99:00:00:00:99"), null), L3Header.of(Gid.ofIp(src), Gid.ofIp(dst)), 0xc000, 0xffff, 0,
                Mad.of(RdmaCmRequests.req(0x1234, 0x0200000000000001L, 0x10, 0, PortSpace.TCP, src, 40000, dst, 7471,
                        null), 0x1234));
        List<CmRej> rejs = new ArrayList<>();
        Decision d = pipeline.onFrame("rxe0", req, System.nanoTime(), f -> {
            if (RoceDecoder.decodeEthernet(f) instanceof FrameResult.Decoded fd
                    && fd.frame().mad().message() instanceof CmRej rej) {
                rejs.add(rej);
            }
        });
        assertThat(d.outcome()).as("the resolver's decision: %s", d).isEqualTo(Decision.Outcome.DELIVER);
        return rejs;
    }

    @Test
    void aConsumerThatLeavesDuringTheHandoverGetsItsRequestRejectedOnce() throws Exception {
        List<CmRej> rejs = rejsFor(true);
        assertThat(rejs).hasSize(1);
        assertThat(rejs.get(0).reason()).isEqualTo(28);
        assertThat(rejs.get(0).remoteCommId()).isEqualTo(0x1234);
    }

    @Test
    void aConsumerGoneBeforeTheHandoverGetsItsRequestRejectedOnceByTheDispatcher() throws Exception {
        List<CmRej> rejs = rejsFor(false);
        assertThat(rejs).hasSize(1);
        assertThat(rejs.get(0).reason()).isEqualTo(28);
    }
}
