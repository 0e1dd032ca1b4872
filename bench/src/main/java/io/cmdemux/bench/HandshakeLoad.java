package io.cmdemux.bench;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmMra;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.CmaHeader;
import io.cmdemux.ingress.wire.CmRep;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.CmRtu;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.Octets;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.netdev.ClassicBpf;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.PacketSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many rdma_connect active sides in one process (scripts/bench-handshake): up to {@code window}
 * handshakes in flight, each REQ → (MRA) → REP → RTU, completions timed from REQ to REP; the MRA
 * (the daemon took the REQ and handed it over) is timed too. Each REQ carries its send time
 * (System.nanoTime, CLOCK_MONOTONIC, the same clock in every process on the host) as its consumer
 * private data, so a consumer can time the way in ({@link AcceptingConsumer}). The first
 * {@code warmup} seconds are not counted.
 */
final class HandshakeLoad {
    private static final int RECEIVE_BUFFER = 32 << 20;

    private HandshakeLoad() {}

    /** The REQ's consumer private data: its send time, big-endian, and whether it falls in the counted seconds. */
    static byte[] sentAt(long nanos, boolean counted) {
        return ByteBuffer.allocate(Long.BYTES + 1).putLong(nanos).put((byte) (counted ? 1 : 0)).array();
    }

    /** The send time {@link #sentAt} put in a REQ's private data, after the rdma_cm header; -1 during the warm-up. */
    static long sentAt(CmReq req) {
        ByteBuffer b = ByteBuffer.wrap(req.privateData().toByteArray(), CmaHeader.SIZE, Long.BYTES + 1);
        long t = b.getLong();
        return b.get() == 1 ? t : -1;
    }

    /** Latency samples from several threads, up to a bound. */
    static final class Latencies {
        private final long[] samples;
        private final AtomicLong n = new AtomicLong();

        Latencies(int capacity) {
            samples = new long[capacity];
        }

        void add(long nanos) {
            long i = n.getAndIncrement();
            if (i < samples.length) {
                samples[(int) i] = nanos;
            }
        }

        double quantileMillis(double q) {
            long[] l = Arrays.copyOf(samples, (int) Math.min(n.get(), samples.length));
            if (l.length == 0) {
                return 0;
            }
            Arrays.sort(l);
            return l[Math.min(l.length - 1, (int) (l.length * q))] / 1e6;
        }
    }

    /**
     * @param warmup seconds of the same load first, not counted: five fresh JVMs compiling their hot
     *     paths (C2) take much of two cores for the first seconds
     */
    static void run(int ifindex, HwAddr srcMac, InetAddress src, int warmup, int seconds, int window, List<String> targets) throws Exception {
        List<InetAddress> dsts = new ArrayList<>();
        List<L2Header> l2s = new ArrayList<>();
        for (String t : targets) {
            String[] p = t.split("=");
            dsts.add(InetAddresses.parse(p[0]));
            l2s.add(new L2Header(HwAddr.parse(p[1]), srcMac, null));
        }
        ConcurrentHashMap<Integer, Long> started = new ConcurrentHashMap<>();
        Semaphore slots = new Semaphore(window);
        AtomicLong done = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        Latencies rep = new Latencies(1 << 22);
        Latencies mra = new Latencies(1 << 22);
        long from = System.nanoTime() + warmup * 1_000_000_000L;
        long end = from + seconds * 1_000_000_000L;
        // The default receive buffer (rmem_default) holds some 150 frames: a window of a few hundred
        // handshakes answers with twice that many MRAs and REPs at once, and a REP lost there costs
        // the daemon's REP retry timeout (4 s at the REQ's response timeout of 20).
        try (PacketSocket s = PacketSocket.open(ifindex, ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 50, RECEIVE_BUFFER)) {
            Thread rx = new Thread(() -> {
                // One recvmmsg takes every answer already queued: a burst of REPs costs one wake-up.
                PacketSocket.Batch batch = new PacketSocket.Batch(64);
                try {
                    while (System.nanoTime() < end + 2_000_000_000L) {
                        int n = s.receive(batch);
                        long now = System.nanoTime();
                        for (int i = 0; i < n; i++) {
                            FrameResult r = RoceDecoder.decodeEthernet(batch.frame(i));
                            if (!(r instanceof FrameResult.Decoded d)) {
                                continue;
                            }
                            CmMessage m = d.frame().mad().message();
                            if (m instanceof CmRep p) {
                                Long t0 = started.remove(p.remoteCommId());
                                if (t0 != null) {
                                    s.send(RoceFrameBuilder.reply(d.frame(), new CmRtu(p.remoteCommId(), p.localCommId(), Octets.zeros(0)), 0xc000, 0));
                                    if (t0 - from >= 0) {
                                        rep.add(now - t0);
                                        done.incrementAndGet();
                                    }
                                    slots.release();
                                }
                            } else if (m instanceof CmMra a) {
                                Long t0 = started.get(a.remoteCommId());
                                if (t0 != null && t0 - from >= 0) {
                                    mra.add(now - t0);
                                }
                            } else if (m instanceof CmRej rej) {
                                Long t0 = started.remove(rej.remoteCommId());
                                if (t0 != null) {
                                    rejected.incrementAndGet();
                                    slots.release();
                                }
                            }
                        }
                    }
                } catch (Exception e) {
                    System.err.println("receiver: " + e);
                }
            }, "rx");
            rx.start();
            int comm = 1;
            boolean counting = false;
            while (System.nanoTime() < end) {
                if (!counting && System.nanoTime() - from >= 0) {
                    counting = true;
                    System.out.println("counting"); // for scripts/bench-handshake, which then samples CPU
                }
                if (!slots.tryAcquire(10, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    continue;
                }
                int k = comm % dsts.size();
                long t = System.nanoTime();
                var req = RdmaCmRequests.req(comm, 0x0200000000000002L, 0x10 + (comm & 0xffff), comm & 0xffffff, PortSpace.TCP, src, 40000,
                        dsts.get(k), 7471, sentAt(t, t - from >= 0));
                started.put(comm, t);
                s.send(RoceFrameBuilder.cmFrame(l2s.get(k), L3Header.of(Gid.ofIp(src), Gid.ofIp(dsts.get(k))), 0xc000, 0xffff, 0, Mad.of(req, comm)));
                comm++;
            }
            double secs = (System.nanoTime() - from) / 1e9;
            rx.join();
            System.out.printf("handshakes=%d rate=%.0f/s rejected=%d unanswered=%d window=%d p50=%.2fms p99=%.2fms (REQ to MRA p50=%.2fms p99=%.2fms)%n",
                    done.get(), done.get() / secs, rejected.get(), started.size(), window, rep.quantileMillis(0.5), rep.quantileMillis(0.99),
                    mra.quantileMillis(0.5), mra.quantileMillis(0.99));
        }
    }
}
