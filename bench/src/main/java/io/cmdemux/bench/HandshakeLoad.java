package io.cmdemux.bench;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmMessage;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many rdma_connect active sides in one process (scripts/bench-handshake): up to {@code window}
 * handshakes in flight, each REQ → (MRA) → REP → RTU, completions timed from REQ to RTU.
 */
final class HandshakeLoad {
    private HandshakeLoad() {}

    static void run(int ifindex, HwAddr srcMac, InetAddress src, int seconds, int window, List<String> targets) throws Exception {
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
        long[] lat = new long[4_000_000];
        AtomicLong latN = new AtomicLong();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        try (PacketSocket s = PacketSocket.open(ifindex, ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 50)) {
            Thread rx = new Thread(() -> {
                try {
                    while (System.nanoTime() < end + 2_000_000_000L) {
                        PacketSocket.Frame f = s.receive();
                        if (f == null) {
                            continue;
                        }
                        FrameResult r = RoceDecoder.decodeEthernet(f.bytes());
                        if (!(r instanceof FrameResult.Decoded d)) {
                            continue;
                        }
                        CmMessage m = d.frame().mad().message();
                        if (m instanceof CmRep rep) {
                            Long t0 = started.remove(rep.remoteCommId());
                            if (t0 != null) {
                                s.send(RoceFrameBuilder.reply(d.frame(), new CmRtu(rep.remoteCommId(), rep.localCommId(), Octets.zeros(0)), 0xc000, 0));
                                long i = latN.getAndIncrement();
                                if (i < lat.length) {
                                    lat[(int) i] = System.nanoTime() - t0;
                                }
                                done.incrementAndGet();
                                slots.release();
                            }
                        } else if (m instanceof CmRej rej && started.remove(rej.remoteCommId()) != null) {
                            rejected.incrementAndGet();
                            slots.release();
                        }
                    }
                } catch (Exception e) {
                    System.err.println("receiver: " + e);
                }
            }, "rx");
            rx.start();
            int comm = 1;
            long t0 = System.nanoTime();
            while (System.nanoTime() < end) {
                if (!slots.tryAcquire(10, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    continue;
                }
                int k = comm % dsts.size();
                var req = RdmaCmRequests.req(comm, 0x0200000000000002L, 0x10 + (comm & 0xffff), comm & 0xffffff, PortSpace.TCP, src, 40000,
                        dsts.get(k), 7471, null);
                started.put(comm, System.nanoTime());
                s.send(RoceFrameBuilder.cmFrame(l2s.get(k), L3Header.of(Gid.ofIp(src), Gid.ofIp(dsts.get(k))), 0xc000, 0xffff, 0, Mad.of(req, comm)));
                comm++;
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            rx.join();
            int n = (int) Math.min(latN.get(), lat.length);
            long[] l = Arrays.copyOf(lat, n);
            Arrays.sort(l);
            System.out.printf("handshakes=%d rate=%.0f/s rejected=%d unanswered=%d window=%d p50=%.2fms p99=%.2fms%n", done.get(), done.get() / secs,
                    rejected.get(), started.size(), window, n == 0 ? 0 : l[n / 2] / 1e6, n == 0 ? 0 : l[Math.min(n - 1, (int) (n * 0.99))] / 1e6);
        }
    }
}
