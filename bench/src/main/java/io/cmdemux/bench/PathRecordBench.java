package io.cmdemux.bench;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.pathrecord.PathCache;
import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.pathrecord.PathRecord;
import io.cmdemux.pathrecord.PathResolver;
import io.cmdemux.pathrecord.ls.LsCodec;
import io.cmdemux.pathrecord.ls.LsMessage;
import io.cmdemux.pathrecord.ls.PathUse;
import io.cmdemux.pathrecord.policy.Policy;
import io.cmdemux.pathrecord.source.PathSource;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Cached answers through the codec and the cache (issue 9): the kernel's RESOLVE bytes in, the
 * reply bytes out, for a query whose answer is cached: split and decode the request, build the
 * query, look it up, stack the records for the path use and encode the reply. What the responder's
 * reader thread does per request on a hit, without the socket. Compare with saquery's per-query
 * rate against OpenSM (scripts/bench-pathrecord, docs/PERFORMANCE.md).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PathRecordBench {
    static final Gid SGID = Gid.parse("fe80::2:c903:0:1");
    static final Gid DGID = Gid.parse("fe80::2:c903:0:77");

    byte[] request;
    PathResolver resolver;

    @Setup
    public void setup() throws Exception {
        PathRecord rec = new PathRecord(0x1061d2fL, DGID, SGID, 4, 2, false, 0, 0, 0, true, 1, 0xffff, 0, 0, 2, 4,
                2, 7, 2, 18, 0);
        PathSource src = new PathSource() {
            @Override
            public String name() {
                return "fixed";
            }

            @Override
            public CompletableFuture<PathRecord> resolve(PathQuery q) {
                return CompletableFuture.completedFuture(rec);
            }
        };
        HostState empty = new HostState(TopologySnapshot.of(0, new NetnsId(0, 0), List.of(), List.of()),
                RdmaTopology.empty(), ListenerTable.empty());
        resolver = new PathResolver(() -> empty, Policy.empty(), src, new PathCache(100_000, Duration.ofHours(1), 0));
        request = LsCodec.encodeResolveRequest(new LsMessage.ResolveRequest(7, 0, "mlx5_0", 1, PathUse.ALL.wire(),
                OptionalLong.of(0x1061d2fL), DGID, SGID, OptionalInt.empty(), OptionalInt.of(0xffff),
                OptionalInt.of(0), 0));
        answer(); // the miss that fills the cache
    }

    @Benchmark
    public byte[] cachedAnswer() throws MalformedException {
        return answer();
    }

    private byte[] answer() throws MalformedException {
        LsMessage.ResolveRequest req = (LsMessage.ResolveRequest) LsCodec.decode(NlMessage.of(request));
        PathQuery q = new PathQuery(req.device(), req.port(), req.sgid(), req.dgid(), req.pkey(), req.serviceId(),
                req.tclass(), req.qosClass(), req.use().reversible(), OptionalInt.empty());
        PathResolver.Result r = resolver.resolve(q).join();
        return LsCodec.encodeResolveReply(req.seq(), 0, r.answer().paths().records(req.use()));
    }
}
