package io.cmdemux.dataplane.dispatch;

import io.cmdemux.dataplane.cm.Sessions;
import io.cmdemux.dataplane.consumer.Consumers;
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
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
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

/**
 * A soft port rxe0 whose GID 10.99.0.11 is pod1's macvlan, a TCP listener on port 7471 there owned by
 * {@link #OWNER}, and the pipeline in front of a Dispatcher with the kernel-mode resolver, its sessions and
 * metrics: frames go in through {@link #onFrame}, and what the daemon sends comes back.
 */
final class DispatchLab {
    static final String OWNER = "consumer-1";

    /** Consumers that own the lab's listener table and do nothing else; tests add what they need. */
    static class TableConsumers extends io.cmdemux.dataplane.consumer.NoConsumers {
        final ListenerTable listeners;

        TableConsumers(ListenerTable listeners) {
            this.listeners = listeners;
        }

        @Override
        public ListenerTable listeners() {
            return listeners;
        }
    }
    static final int LISTENER_PORT = 7471;

    final ListenerTable listeners;
    final Metrics metrics = new Metrics();
    final Sessions sessions;
    final Dispatcher dispatcher;
    final Pipeline pipeline;
    /** Every frame the daemon sent, in order. */
    final List<byte[]> sent = new ArrayList<>();

    DispatchLab(java.util.function.Function<ListenerTable, Consumers> consumersFor) {
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
        listeners = new ListenerTable(1, List.of(new Listener(pod, PortSpace.TCP, LISTENER_PORT,
                InetAddresses.parse("0.0.0.0"), false, 0, 1, null, OWNER)));
        HostState state = new HostState(b.snapshot(1), new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED,
                List.of(new RdmaDevice("rxe0", 0, true, null, List.of(port)))), listeners);
        Consumers consumers = consumersFor.apply(listeners);
        RejLimiter limiter = new RejLimiter(1000);
        sessions = new Sessions(Sessions.Config.defaults(), consumers, metrics, 0x0200000000000002L);
        dispatcher = new Dispatcher(consumers, metrics, limiter, Duration.ofSeconds(60), sessions);
        pipeline = new Pipeline(() -> state, new DecisionCache(100), ResolverMode.KERNEL, true, dispatcher,
                sessions, limiter, metrics, new DecisionLog(10));
    }

    /** A REQ from 10.99.0.99:40000 to 10.99.0.11:{@code dstPort} with the requester's comm ID {@code commId}. */
    static byte[] req(int commId, int dstPort) {
        InetAddress src = InetAddresses.parse("10.99.0.99");
        InetAddress dst = InetAddresses.parse("10.99.0.11");
        return RoceFrameBuilder.cmFrame(new L2Header(HwAddr.parse("02:99:00:00:00:01"),
                HwAddr.parse("02:99:00:00:00:99"), null), L3Header.of(Gid.ofIp(src), Gid.ofIp(dst)), 0xc000, 0xffff, 0,
                Mad.of(RdmaCmRequests.req(commId, 0x0200000000000001L, 0x10, 0, PortSpace.TCP, src, 40000, dst,
                        dstPort, null), commId));
    }

    Decision onFrame(byte[] frame) {
        return pipeline.onFrame("rxe0", frame, System.nanoTime(), sent::add);
    }
}
