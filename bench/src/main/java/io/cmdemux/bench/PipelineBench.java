package io.cmdemux.bench;

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
import io.cmdemux.control.protocol.DecisionSummary;
import io.cmdemux.control.protocol.Messages;
import io.cmdemux.dataplane.consumer.NoConsumers;
import io.cmdemux.dataplane.pipeline.DecisionLog;
import io.cmdemux.dataplane.dispatch.Dispatcher;
import io.cmdemux.dataplane.reply.FrameSender;
import io.cmdemux.dataplane.metrics.Metrics;
import io.cmdemux.dataplane.pipeline.Pipeline;
import io.cmdemux.dataplane.reply.RejLimiter;
import io.cmdemux.dataplane.cm.Sessions;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The daemon's per-frame cost on the tap thread (issue 6): {@link Pipeline#onFrame} with the real
 * decoder, decision cache, {@link Dispatcher}, {@link Sessions}, {@link RejLimiter}, {@link Metrics}
 * and {@link DecisionLog}, on REQs with distinct comm IDs to two macvlan pods, as scripts/bench-ingress
 * sends them. What is left out is I/O: the consumer is a sink that encodes each delivery exactly as
 * the control server does (Messages.encodeRequest, on the tap thread there too) and drops
 * the bytes, and the port's MRA goes to a sink instead of sendto(2). Dispatcher and Sessions are made
 * afresh for each iteration, so their tables hold what a 1-second burst leaves (no session is
 * answered in the ingress benchmark either).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class PipelineBench {
    /** Distinct comm IDs: more than an iteration handles, so none of them is a retransmission. */
    private static final int FRAMES = 1 << 19;

    private byte[][] frames;
    private HostState state;
    private Pipeline pipeline;
    private Sessions sessions;
    private final SinkConsumers consumers = new SinkConsumers();
    private final FrameSender port = f -> consumers.sentBytes += f.length;
    private int i;

    /** Encodes a delivery as ControlServer.deliver does and keeps only its length. */
    static final class SinkConsumers extends NoConsumers {
        ListenerTable listeners;
        long deliveredBytes;
        long sentBytes;
        int seq;

        @Override
        public ListenerTable listeners() {
            return listeners;
        }

        @Override
        public Handover deliver(Delivery d) {
            byte[] b = Messages.encodeRequest(++seq, d.traceId(), d.listener().bindOrder(), d.meta(), d.frame(),
                    DecisionSummary.of(d.decision()), "pod");
            deliveredBytes += b.length;
            return Handover.TAKEN;
        }

        @Override
        public boolean notify(String owner, io.cmdemux.dataplane.consumer.CmEvent event) {
            return true;
        }
    }

    @Setup(Level.Trial)
    public void host() {
        DumpBuilder b = new DumpBuilder();
        NetnsId host = b.host();
        b.link(host, 2, "up0").add();
        List<GidEntry> gids = new ArrayList<>();
        gids.add(new GidEntry(0, Gid.parse("fe80::ff:fe00:2"), GidType.ROCE_V2, new LinkRef(host, 2),
                OptionalInt.empty()));
        List<Listener> listeners = new ArrayList<>();
        List<InetAddress> pods = new ArrayList<>();
        List<L2Header> l2s = new ArrayList<>();
        HwAddr client = HwAddr.parse("02:99:00:00:00:99");
        for (int p = 1; p <= 2; p++) {
            NetnsId pod = b.pod("pod" + p, p);
            String ip = "10.99.0.1" + p;
            b.link(pod, 10, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).add().addr(pod, 10, ip + "/24");
            gids.add(new GidEntry(gids.size(), Gid.parse(ip), GidType.ROCE_V2, new LinkRef(pod, 10),
                    OptionalInt.empty()));
            listeners.add(new Listener(pod, PortSpace.TCP, 7471, InetAddresses.parse("0.0.0.0"), false, 0, p, null,
                    "consumer-" + p));
            pods.add(InetAddresses.parse(ip));
            l2s.add(new L2Header(HwAddr.parse("02:99:00:00:00:0" + p), client, null));
        }
        RdmaPort rport = new RdmaPort(1, RdmaPort.LinkLayer.ETHERNET, "ACTIVE", 0, List.of(), gids,
                new PkeyTable(List.of(0xffff)), new LinkRef(host, 2), List.of());
        RdmaTopology rdma = new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED,
                List.of(new RdmaDevice("rxe0", 0, true, null, List.of(rport))));
        ListenerTable table = new ListenerTable(1, listeners);
        consumers.listeners = table;
        state = new HostState(b.snapshot(1), rdma, table);
        InetAddress src = InetAddresses.parse("10.99.0.99");
        frames = new byte[FRAMES][];
        for (int comm = 1; comm <= FRAMES; comm++) {
            int k = comm % pods.size();
            InetAddress dst = pods.get(k);
            var req = RdmaCmRequests.req(comm, 0x0200000000000001L, 0x10, 0, PortSpace.TCP, src, 40000,
                    dst, 7471, null);
            frames[comm - 1] = RoceFrameBuilder.cmFrame(l2s.get(k), L3Header.of(Gid.ofIp(src), Gid.ofIp(dst)), 0xc000,
                    0xffff, 0, Mad.of(req, comm));
        }
    }

    @Setup(Level.Iteration)
    public void daemon() {
        Metrics metrics = new Metrics();
        RejLimiter limiter = new RejLimiter(1000);
        sessions = new Sessions(Sessions.Config.defaults(), consumers, metrics, 0x0200000000000002L);
        Dispatcher dispatcher = new Dispatcher(consumers, metrics, limiter, Duration.ofSeconds(60), sessions);
        pipeline = new Pipeline(() -> state, new DecisionCache(100_000), ResolverMode.KERNEL, true, dispatcher,
                sessions, limiter, metrics, new DecisionLog(100));
        Decision d = pipeline.onFrame("rxe0", frames[0], System.nanoTime(), port);
        if (d == null || d.outcome() != Decision.Outcome.DELIVER) {
            throw new IllegalStateException("the benchmark request is not delivered: " + d);
        }
        i = 1;
    }

    @TearDown(Level.Iteration)
    public void stop() {
        if (i >= FRAMES) {
            throw new IllegalStateException("an iteration ran out of distinct requests; raise FRAMES");
        }
        sessions.close();
    }

    /**
     * What the daemon keeps per delivered, unanswered REQ (heap after a full GC, divided by the REQs):
     * {@code java -cp benchmarks.jar io.cmdemux.bench.PipelineBench [REQS]}.
     */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        PipelineBench b = new PipelineBench();
        b.host();
        b.daemon();
        long before = usedAfterGc();
        for (int k = 0; k < n; k++) {
            b.pipeline.onFrame("rxe0", b.frames[b.i++], System.nanoTime(), b.port);
        }
        long after = usedAfterGc();
        System.out.printf("retained per delivered REQ: %d bytes (%d REQs, %d sessions)%n", (after - before) / n, n,
                b.sessions.size());
        b.stop();
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int k = 0; k < 3; k++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }

    /** One REQ from the tap to its consumer's encoded delivery, with its MRA built. */
    @Benchmark
    public void onFrame(Blackhole bh) {
        bh.consume(pipeline.onFrame("rxe0", frames[i++], System.nanoTime(), port));
    }
}
