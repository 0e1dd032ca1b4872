package io.cmdemux.bench;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmAttribute;
import io.cmdemux.ingress.wire.RoceFrameView;
import io.cmdemux.netdev.MalformedException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Issue 3's ratio, decode + verify over a bare CRC32 pass of the same bytes, measured in pairs. JMH runs
 * each benchmark in forks of its own, one after the other, and on this machine a whole JVM, or a stretch
 * of seconds inside one, can run 1.5 times slower, the bare pass as much as the decode, without a
 * collection or a recompilation; the ratio of two JMH rows can then compare a slow stretch with a fast
 * one. Here the four loops take turns in rounds of a few milliseconds inside one JVM, in alternating
 * order, and every round gives its own ratios.
 *
 * <p>The frames come from a ring of 8 arrays, as a receive loop takes them: either alone in their arrays,
 * or inside larger ones at 0, 8, ... 56, a start that changes from frame to frame.
 *
 * <p>Usage: CmCodecPairedBench [FORKS [ROUNDS]] (default 5 forks of 60 rounds); each fork is a JVM of its
 * own with the serial collector, as the daemon runs.
 */
public final class CmCodecPairedBench {
    private static final String FORK = "--fork";
    private static final int RING = 8;
    private static final int OPS = 100_000;
    private static final int WARMUP_ROUNDS = 40;

    private final RoceFrameView view = new RoceFrameView();
    private final byte[][] alone = new byte[RING][];
    private final byte[][] inside = new byte[RING][];
    private final int[] start = new int[RING];
    private int length;
    private long sink;

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals(FORK)) {
            new CmCodecPairedBench().run(Integer.parseInt(args[1]));
            return;
        }
        int forks = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        String rounds = args.length > 1 ? args[1] : "60";
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int i = 1; i <= forks; i++) {
            System.out.print("fork " + i + ": ");
            System.out.flush();
            Process p = new ProcessBuilder(java, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                    CmCodecPairedBench.class.getName(), FORK, rounds).inheritIO().start();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("fork " + i + " exited with " + p.exitValue());
            }
        }
    }

    private void run(int rounds) throws Exception {
        CmCodecBenchmark codec = new CmCodecBenchmark();
        codec.setup();
        byte[] frame = codec.reqFrame();
        length = frame.length;
        for (int i = 0; i < RING; i++) {
            alone[i] = frame.clone();
            start[i] = 8 * i;
            inside[i] = new byte[64 + length + 64];
            System.arraycopy(frame, 0, inside[i], start[i], length);
        }
        System.gc(); // settles the arrays in the old generation, where they stay put
        double[][] perOp = new double[4][rounds];
        for (int r = -WARMUP_ROUNDS; r < rounds; r++) {
            double[] t = round((r & 1) == 0);
            for (int k = 0; r >= 0 && k < t.length; k++) {
                perOp[k][r] = t[k];
            }
        }
        System.out.printf("%d rounds of %d frames per loop, ns/op (median of the rounds) and decode / bare pass"
                + " (median, mean, range of the rounds)%n"
                + "  frame alone in its array:    bare pass %5.1f, decode %5.1f: %s%n"
                + "  frame inside a larger array: bare pass %5.1f, decode %5.1f: %s%n",
                rounds, OPS, median(perOp[0]), median(perOp[1]), ratios(perOp[1], perOp[0]),
                median(perOp[2]), median(perOp[3]), ratios(perOp[3], perOp[2]));
        if (sink == 42) {
            System.out.println(); // keeps the loops' results alive
        }
    }

    /**
     * ns/op of the bare pass and the decode, alone and inside; backwards on every other round, so
     * that a drift hits both alike.
     */
    private double[] round(boolean forwards) throws MalformedException {
        double[] t = new double[4];
        for (int i = 0; i < t.length; i++) {
            int k = forwards ? i : t.length - 1 - i;
            long t0 = System.nanoTime();
            sink += switch (k) {
                case 0 -> crcAlone();
                case 1 -> decodeAlone();
                case 2 -> crcInside();
                default -> decodeInside();
            };
            t[k] = (System.nanoTime() - t0) / (double) OPS;
        }
        return t;
    }

    private long crcAlone() {
        long s = 0;
        for (int i = 0; i < OPS; i++) {
            CRC32 crc = new CRC32();
            crc.update(alone[i & (RING - 1)], 0, length);
            s += crc.getValue();
        }
        return s;
    }

    private long decodeAlone() throws MalformedException {
        long s = 0;
        for (int i = 0; i < OPS; i++) {
            byte[] f = alone[i & (RING - 1)];
            s += routingFields(view.wrapEthernet(f, 0, f.length));
        }
        return s;
    }

    private long crcInside() {
        long s = 0;
        for (int i = 0; i < OPS; i++) {
            CRC32 crc = new CRC32();
            crc.update(inside[i & (RING - 1)], start[i & (RING - 1)], length);
            s += crc.getValue();
        }
        return s;
    }

    private long decodeInside() throws MalformedException {
        long s = 0;
        for (int i = 0; i < OPS; i++) {
            int at = start[i & (RING - 1)];
            s += routingFields(view.wrapEthernet(inside[i & (RING - 1)], at, at + length));
        }
        return s;
    }

    /** CmCodecBenchmark's fields, read from a view already pointed at the frame. */
    private static long routingFields(RoceFrameView v) {
        if (!v.icrcValid() || v.attribute() != CmAttribute.REQ) {
            return -1;
        }
        Gid remote = v.primaryRemoteGid();
        return v.requestId() + v.serviceId() + v.requestPkey() + v.bthPkey() + remote.hi() + remote.lo()
                + v.primaryLocalGid().lo() + v.cmaIpVersion() + v.cmaSrcPort() + v.cmaSrcAddr().lo()
                + v.cmaDstAddr().lo();
    }

    private static String ratios(double[] decode, double[] bare) {
        double[] r = new double[decode.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = decode[i] / bare[i];
        }
        double[] sorted = r.clone();
        Arrays.sort(sorted);
        long over = Arrays.stream(r).filter(x -> x > 2).count();
        return String.format("%.2f x, mean %.2f x, %.2f-%.2f x, %d of %d rounds over 2 x", median(r),
                Arrays.stream(r).average().orElse(0), sorted[0], sorted[sorted.length - 1], over, r.length);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
