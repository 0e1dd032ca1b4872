package io.cmdemux.bench;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.pathrecord.Answer;
import io.cmdemux.pathrecord.PathCache;
import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.pathrecord.PathResolver;
import io.cmdemux.pathrecord.ls.LsCodec;
import io.cmdemux.pathrecord.ls.LsMessage;
import io.cmdemux.pathrecord.ls.PathUse;
import io.cmdemux.pathrecord.policy.Policy;
import io.cmdemux.pathrecord.sa.SaClient;
import io.cmdemux.pathrecord.sa.SaPathSource;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Our SA-miss latency (issue 9), for scripts/bench-pathrecord: the responder's work for a query the
 * cache does not have, one at a time: decode the kernel's RESOLVE bytes, infer the origin, apply the
 * (empty) policy, ask the SA through libibumad, stack the records and encode the reply. Each query
 * carries a new service ID, so every one is a miss, with the component mask of the C baseline
 * (bench/src/main/c/sa_pathrecord_get.c). Runs under the umad2sim preload as its own small JVM.
 *
 * <p>Usage: PathRecordSaLatency DEVICE PORT SGID DGID N [WARMUP] [raw | paired C_PROGRAM ROUNDS]; "raw" times
 * SaClient.query alone (no codec, cache or policy), to tell the SA client's own cost from the rest;
 * "paired" alternates rounds of N of our queries with N of the C program's (the same fabric, the same
 * moment), so that a shared machine's changing load hits both alike, and prints each round's medians.
 */
public final class PathRecordSaLatency {
    private PathRecordSaLatency() {}

    public static void main(String[] args) throws Exception {
        String dev = args[0];
        int port = Integer.parseInt(args[1]);
        Gid sgid = Gid.parse(args[2]);
        Gid dgid = Gid.parse(args[3]);
        int n = Integer.parseInt(args[4]);
        int warmup = args.length > 5 ? Integer.parseInt(args[5]) : n;
        boolean raw = args.length > 6 && args[6].equals("raw");
        boolean paired = args.length > 8 && args[6].equals("paired");
        HostState empty = new HostState(TopologySnapshot.of(0, new NetnsId(0, 0), List.of(), List.of()),
                RdmaTopology.empty(), ListenerTable.empty());
        try (SaPathSource sa = new SaPathSource(new SaClient.Settings(200, 2, 64))) {
            PathResolver r = new PathResolver(() -> empty, Policy.empty(), sa,
                    new PathCache(1_000_000, Duration.ofMinutes(5), 0));
            long[] lat = new long[n];
            if (raw) {
                SaClient c = sa.client(dev, port);
                for (int i = 0; i < warmup + n; i++) {
                    long t0 = System.nanoTime();
                    long[] done = new long[1];
                    c.query(PathQuery.of(dev, port, sgid, dgid).withServiceId(0x0000000001060000L + i)).thenApply(x -> {
                        done[0] = System.nanoTime();
                        return x;
                    }).get(5, TimeUnit.SECONDS);
                    if (i >= warmup) {
                        lat[i - warmup] = done[0] - t0;
                    }
                }
                print(lat, n, warmup, "raw SaClient.query");
                return;
            }
            if (paired) {
                String cProgram = args[7];
                int rounds = Integer.parseInt(args[8]);
                missLatencies(r, dev, port, sgid, dgid, warmup, 0);
                List<Double> ratios = new java.util.ArrayList<>();
                for (int round = 1; round <= rounds; round++) {
                    long[] ours = missLatencies(r, dev, port, sgid, dgid, n, 1_000_000L * round);
                    long[] sorted = ours.clone();
                    Arrays.sort(sorted);
                    Process c = new ProcessBuilder(cProgram, dev, Integer.toString(port), sgid.toString(),
                            dgid.toString(), Integer.toString(n))
                            .redirectErrorStream(true).start();
                    String out = new String(c.getInputStream().readAllBytes()).trim();
                    if (c.waitFor() != 0) {
                        throw new IllegalStateException("C program failed: " + out);
                    }
                    long cMedian = Long.parseLong(out.replaceAll(".*median_ns=(\\d+).*", "$1"));
                    double ratio = (double) sorted[n / 2] / cMedian;
                    ratios.add(ratio);
                    System.out.printf("round=%d ours_median_ns=%d c_median_ns=%d ratio=%.2f c: %s%n", round,
                            sorted[n / 2], cMedian, ratio, out);
                }
                ratios.sort(null);
                System.out.printf("paired_rounds=%d median_ratio=%.2f min_ratio=%.2f max_ratio=%.2f%n", rounds,
                        ratios.get(rounds / 2), ratios.get(0), ratios.get(rounds - 1));
                return;
            }
            for (int i = 0; i < warmup + n; i++) {
                byte[] request = LsCodec.encodeResolveRequest(new LsMessage.ResolveRequest(i, 0, dev, port,
                        PathUse.ALL.wire(), OptionalLong.of(0x0000000001060000L + i), dgid, sgid, OptionalInt.empty(),
                        OptionalInt.empty(), OptionalInt.empty(), 0));
                long t0 = System.nanoTime();
                LsMessage.ResolveRequest req = (LsMessage.ResolveRequest) LsCodec.decode(NlMessage.of(request));
                PathQuery q = new PathQuery(req.device(), req.port(), req.sgid(), req.dgid(), req.pkey(),
                        req.serviceId(), req.tclass(), req.qosClass(), req.use().reversible(), OptionalInt.empty());
                // As in Responder: the reply is stacked and encoded on the thread that completes the answer (the SA
                // client's reader, woken from umad_recv's poll as the C program is), and the clock stops there.
                long[] done = new long[1];
                byte[][] reply = new byte[1][];
                PathResolver.Result res = r.resolve(q).thenApply(x -> {
                    if (x.answer().kind() == Answer.Kind.PATHS) {
                        reply[0] = LsCodec.encodeResolveReply(req.seq(), 0, x.answer().paths().records(req.use()));
                    }
                    done[0] = System.nanoTime();
                    return x;
                }).get(5, TimeUnit.SECONDS);
                if (res.cached() || res.answer().kind() != Answer.Kind.PATHS || reply[0] == null) {
                    throw new IllegalStateException("query " + i + " was not an SA miss with records: "
                            + res.answer().kind() + " " + res.answer().detail());
                }
                if (i >= warmup) {
                    lat[i - warmup] = done[0] - t0;
                }
            }
            print(lat, n, warmup, "decode+origin+policy+cache miss+SA+encode");
        }
    }

    /** n SA misses through the responder's path, each with a new service ID from {@code base}; latencies in ns. */
    private static long[] missLatencies(PathResolver r, String dev, int port, Gid sgid, Gid dgid, int n, long base)
            throws Exception {
        long[] lat = new long[n];
        for (int i = 0; i < n; i++) {
            byte[] request = LsCodec.encodeResolveRequest(new LsMessage.ResolveRequest(i, 0, dev, port,
                    PathUse.ALL.wire(), OptionalLong.of(0x0000000100000000L + base + i), dgid, sgid,
                    OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), 0));
            long t0 = System.nanoTime();
            LsMessage.ResolveRequest req = (LsMessage.ResolveRequest) LsCodec.decode(NlMessage.of(request));
            PathQuery q = new PathQuery(req.device(), req.port(), req.sgid(), req.dgid(), req.pkey(),
                    req.serviceId(), req.tclass(), req.qosClass(), req.use().reversible(), OptionalInt.empty());
            long[] done = new long[1];
            byte[][] reply = new byte[1][];
            PathResolver.Result res = r.resolve(q).thenApply(x -> {
                if (x.answer().kind() == Answer.Kind.PATHS) {
                    reply[0] = LsCodec.encodeResolveReply(req.seq(), 0, x.answer().paths().records(req.use()));
                }
                done[0] = System.nanoTime();
                return x;
            }).get(5, TimeUnit.SECONDS);
            if (res.cached() || reply[0] == null) {
                throw new IllegalStateException("query " + i + " was not an SA miss with records: "
                        + res.answer().kind() + " " + res.answer().detail());
            }
            lat[i] = done[0] - t0;
        }
        return lat;
    }

    private static void print(long[] lat, int n, int warmup, String what) {
        long sum = 0;
        for (long v : lat) {
            sum += v;
        }
        long[] s = lat.clone();
        Arrays.sort(s);
        System.out.printf("queries=%d mean_ns=%d median_ns=%d p99_ns=%d min_ns=%d warmup=%d (%s)%n", n, sum / n,
                s[n / 2], s[(int) (n * 0.99)], s[0], warmup, what);
    }
}
