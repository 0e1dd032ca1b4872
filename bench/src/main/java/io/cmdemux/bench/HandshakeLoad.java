package io.cmdemux.bench;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmAttribute;
import io.cmdemux.ingress.wire.CmaHeader;
import io.cmdemux.ingress.wire.CmRtu;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.Octets;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.ingress.wire.RoceFrameView;
import io.cmdemux.netdev.ClassicBpf;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.MalformedException;
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

    /**
     * Where {@link #sentAt} is in the frame of one of our REQs (untagged IPv4): Ethernet, IPv4, UDP,
     * BTH and DETH headers, the MAD header, the REQ's private data at byte 140 of its CM data
     * (IBTA 12.6.5), and in it the rdma_cm header.
     */
    private static final int SENT_AT = 14 + 20 + 8 + 12 + 8 + 24 + 140 + CmaHeader.SIZE;

    /**
     * The send time {@link #sentAt} put in the private data of one of our REQs, read in place; -1
     * during the warm-up, or for a frame that is no such REQ.
     */
    static long sentAt(byte[] frame) {
        try {
            RoceFrameView v = RoceFrameView.ethernet(frame, 0, frame.length);
            if (v.attribute() != CmAttribute.REQ || v.ipVersion() != 4 || v.vlanId() >= 0) {
                return -1;
            }
        } catch (MalformedException e) {
            return -1;
        }
        ByteBuffer b = ByteBuffer.wrap(frame, SENT_AT, Long.BYTES + 1);
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

    /** What the sender and the receiver share: the handshakes in flight, the window, and what came back. */
    private static final class Handshakes {
        final ConcurrentHashMap<Integer, Long> started = new ConcurrentHashMap<>();
        final Semaphore slots;
        final AtomicLong done = new AtomicLong();
        final AtomicLong rejected = new AtomicLong();
        final Latencies rep = new Latencies(1 << 22);
        final Latencies mra = new Latencies(1 << 22);
        /** Handshakes started from here on are counted. */
        final long from;
        final long end;

        Handshakes(int window, long from, long end) {
            this.slots = new Semaphore(window);
            this.from = from;
            this.end = end;
        }
    }

    /**
     * @param warmup seconds of the same load first, not counted: five fresh JVMs compiling their hot
     *     paths (C2) take much of two cores for the first seconds
     */
    static void run(int ifindex, HwAddr srcMac, InetAddress src, int warmup, int seconds, int window,
            List<String> targets) throws Exception {
        List<InetAddress> dsts = new ArrayList<>();
        List<L2Header> l2s = new ArrayList<>();
        for (String t : targets) {
            String[] p = t.split("=");
            dsts.add(InetAddresses.parse(p[0]));
            l2s.add(new L2Header(HwAddr.parse(p[1]), srcMac, null));
        }
        long from = System.nanoTime() + warmup * 1_000_000_000L;
        Handshakes h = new Handshakes(window, from, from + seconds * 1_000_000_000L);
        // The default receive buffer (rmem_default) holds some 150 frames: a window of a few hundred
        // handshakes answers with twice that many MRAs and REPs at once, and a REP lost there costs
        // the daemon's REP retry timeout (4 s at the REQ's response timeout of 20).
        try (PacketSocket s = PacketSocket.open(ifindex, ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 50,
                RECEIVE_BUFFER)) {
            Thread rx = new Thread(() -> receiveAnswers(s, h), "rx");
            rx.start();
            sendRequests(s, src, dsts, l2s, h);
            double secs = (System.nanoTime() - from) / 1e9;
            rx.join();
            System.out.printf("handshakes=%d rate=%.0f/s rejected=%d unanswered=%d window=%d p50=%.2fms p99=%.2fms"
                    + " (REQ to MRA p50=%.2fms p99=%.2fms)%n", h.done.get(), h.done.get() / secs, h.rejected.get(),
                    h.started.size(), window, h.rep.quantileMillis(0.5), h.rep.quantileMillis(0.99),
                    h.mra.quantileMillis(0.5), h.mra.quantileMillis(0.99));
        }
    }

    /** The receiver thread: answers REPs with RTUs and counts what came back, until 2 s after the end. */
    private static void receiveAnswers(PacketSocket s, Handshakes h) {
        // One recvmmsg takes every answer already queued, and one sendmmsg sends their RTUs:
        // a burst of REPs costs one wake-up. Answers are read in place, not decoded.
        PacketSocket.Batch batch = new PacketSocket.Batch(64);
        PacketSocket.SendBatch rtus = new PacketSocket.SendBatch(64, 64 << 10);
        RoceFrameView v = new RoceFrameView();
        try {
            while (System.nanoTime() < h.end + 2_000_000_000L) {
                int n = s.receive(batch);
                long now = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    byte[] f = batch.frame(i);
                    try {
                        v.wrapEthernet(f, 0, f.length);
                    } catch (MalformedException e) {
                        continue;
                    }
                    if (!v.icrcValid()) {
                        continue;
                    }
                    switch (v.attribute()) {
                        case REP -> {
                            Long t0 = h.started.remove(v.remoteCommId());
                            if (t0 != null) {
                                CmRtu answer = new CmRtu(v.remoteCommId(), v.localCommId(), Octets.zeros(0));
                                byte[] rtu = RoceFrameBuilder.reply(v, answer, 0xc000, 0);
                                if (!rtus.add(rtu)) {
                                    s.send(rtus);
                                    rtus.add(rtu);
                                }
                                if (t0 - h.from >= 0) {
                                    h.rep.add(now - t0);
                                    h.done.incrementAndGet();
                                }
                                h.slots.release();
                            }
                        }
                        case MRA -> {
                            Long t0 = h.started.get(v.remoteCommId());
                            if (t0 != null && t0 - h.from >= 0) {
                                h.mra.add(now - t0);
                            }
                        }
                        case REJ -> {
                            Long t0 = h.started.remove(v.remoteCommId());
                            if (t0 != null) {
                                h.rejected.incrementAndGet();
                                h.slots.release();
                            }
                        }
                        default -> {
                            // DREQs of the consumers that leave at the end: not part of the handshakes
                        }
                    }
                }
                s.send(rtus);
            }
        } catch (Exception e) {
            System.err.println("receiver: " + e);
        }
    }

    /** The sender: REQs leave in bursts, one sendmmsg for as many as the window has room for, until the end. */
    private static void sendRequests(PacketSocket s, InetAddress src, List<InetAddress> dsts, List<L2Header> l2s,
            Handshakes h) throws Exception {
        PacketSocket.SendBatch reqs = new PacketSocket.SendBatch(64, 64 << 10);
        int comm = 1;
        boolean counting = false;
        while (System.nanoTime() < h.end) {
            if (!counting && System.nanoTime() - h.from >= 0) {
                counting = true;
                System.out.println("counting"); // for scripts/bench-handshake, which then samples CPU
            }
            if (!h.slots.tryAcquire(10, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                continue;
            }
            int burst = 1 + h.slots.drainPermits();
            if (burst > 64) {
                h.slots.release(burst - 64);
                burst = 64;
            }
            for (int j = 0; j < burst; j++, comm++) {
                int k = comm % dsts.size();
                long t = System.nanoTime();
                var req = RdmaCmRequests.req(comm, 0x0200000000000002L, 0x10 + (comm & 0xffff), comm & 0xffffff,
                        PortSpace.TCP, src, 40000, dsts.get(k), 7471, sentAt(t, t - h.from >= 0));
                h.started.put(comm, t);
                reqs.add(RoceFrameBuilder.cmFrame(l2s.get(k), L3Header.of(Gid.ofIp(src), Gid.ofIp(dsts.get(k))),
                        0xc000, 0xffff, 0, Mad.of(req, comm)));
            }
            s.send(reqs);
        }
    }
}
