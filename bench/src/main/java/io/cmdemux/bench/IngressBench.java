package io.cmdemux.bench;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.netdev.ClassicBpf;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.PacketSocket;
import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.dataplane.source.SoftPortTap;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The three processes of scripts/bench-ingress:
 * <ul>
 * <li>{@code send IFINDEX SRCMAC SRCIP SECONDS DST=MAC...}: in the client namespace, replays prebuilt
 *     REQ frames with distinct comm IDs to the pods, as fast as one thread can;</li>
 * <li>{@code baseline IFINDEX SECONDS [batched]}: a bare AF_PACKET loop on the port netdev counting frames that
 *     pass the same UDP 4791 filter, one frame per call or in the daemon's batches — the limits the
 *     daemon is measured against;</li>
 * <li>{@code consume IP PORT SECONDS [client|accept|accept-serial]}: in a pod, a consumer that registers
 *     over @cmdemux and counts delivered REQs: a {@link BatchConsumer} by default, ControlClient's
 *     DeliveredRequest per REQ with {@code client}; with {@code accept} (or {@code accept-serial}) it
 *     answers them ({@link AcceptingConsumer}, scripts/bench-handshake).</li>
 * </ul>
 */
public final class IngressBench {
    private IngressBench() {}

    public static void main(String[] a) throws Exception {
        switch (a[0]) {
            case "send" -> send(Integer.parseInt(a[1]), HwAddr.parse(a[2]), InetAddresses.parse(a[3]),
                    Integer.parseInt(a[4]), List.of(a).subList(5, a.length));
            case "baseline" -> baseline(Integer.parseInt(a[1]), Integer.parseInt(a[2]),
                    a.length > 3 && a[3].equals("batched"));
            case "consume" -> {
                if (a.length > 4 && a[4].startsWith("accept")) {
                    AcceptingConsumer.run(InetAddresses.parse(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]),
                            a[4].equals("accept-serial"));
                } else if (a.length > 4) {
                    consume(InetAddresses.parse(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]));
                } else {
                    BatchConsumer.run(InetAddresses.parse(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]));
                }
            }
            case "handshake" -> HandshakeLoad.run(Integer.parseInt(a[1]), HwAddr.parse(a[2]), InetAddresses.parse(a[3]),
                    Integer.parseInt(a[4]), Integer.parseInt(a[5]), Integer.parseInt(a[6]),
                    List.of(a).subList(7, a.length));
            case "soak-consume" -> SoakConsumer.run(Integer.parseInt(a[1]), InetAddresses.parse(a[2]),
                    Integer.parseInt(a[3]), Integer.parseInt(a[4]), a[5], a.length > 6 ? Integer.parseInt(a[6]) : 0);
            case "soak-wire" -> SoakWire.run(Integer.parseInt(a[1]), Integer.parseInt(a[2]), a[3]);
            default -> throw new IllegalArgumentException(
                    "send | baseline | consume | handshake | soak-consume | soak-wire");
        }
    }

    private static void send(int ifindex, HwAddr srcMac, InetAddress src, int seconds, List<String> targets)
            throws Exception {
        List<InetAddress> dsts = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        List<L2Header> l2s = new ArrayList<>();
        for (String t : targets) {
            // IP=MAC or IP,PORT=MAC (port 7471 by default)
            String[] p = t.split("=");
            String[] ipPort = p[0].split(",");
            dsts.add(InetAddresses.parse(ipPort[0]));
            ports.add(ipPort.length > 1 ? Integer.parseInt(ipPort[1]) : 7471);
            l2s.add(new L2Header(HwAddr.parse(p[1]), srcMac, null));
        }
        long sent = 0;
        long elapsed;
        // Comm IDs go on from run to run (2^21 a second of wall time, more than one thread sends), so a
        // later run's REQs are not retransmissions of an earlier run's to a daemon that saw both.
        int comm = (int) (System.currentTimeMillis() / 1000 << 21) | 1;
        try (PacketSocket s = PacketSocket.open(ifindex, null, 100)) {
            // scripts/bench-ingress opens its window after this pause, when the frames start, not the JVM
            // REQ i has comm ID first + i and goes to target i % targets (scripts/soak's accounting)
            System.out.printf("sending first=%d targets=%d%n", comm, dsts.size());
            Thread.sleep(Long.getLong("bench.pauseSeconds", 0) * 1000);
            long start = System.nanoTime();
            System.out.printf("started=%d%n", System.currentTimeMillis()); // REQ i leaves no earlier than + i/rate
            long end = start + seconds * 1_000_000_000L;
            // bench.rate: REQs a second, paced (scripts/fault-restart); 0, as fast as the socket takes them
            long rate = Long.getLong("bench.rate", 0);
            // bench.stopFile: stop once this file exists (scripts/fault-restart: its restarts take what they take)
            String stopFile = System.getProperty("bench.stopFile");
            java.nio.file.Path stop = stopFile == null ? null : java.nio.file.Path.of(stopFile);
            while (System.nanoTime() < end) {
                if (stop != null && (sent & 1023) == 0 && java.nio.file.Files.exists(stop)) {
                    break;
                }
                if (rate > 0 && sent >= (System.nanoTime() - start) * rate / 1_000_000_000L) {
                    LockSupport.parkNanos(50_000);
                    continue;
                }
                // Every REQ gets a fresh comm ID, so none of them is a retransmission to the daemon.
                int k = (int) (sent % dsts.size());
                InetAddress dst = dsts.get(k);
                var req = RdmaCmRequests.req(comm, 0x0200000000000001L, 0x10, 0, PortSpace.TCP, src, 40000,
                        dst, ports.get(k), null);
                s.send(RoceFrameBuilder.cmFrame(l2s.get(k), L3Header.of(Gid.ofIp(src), Gid.ofIp(dst)), 0xc000, 0xffff,
                        0, Mad.of(req, comm)));
                comm++;
                sent++;
            }
            elapsed = System.nanoTime() - start;
        }
        System.out.printf("sent=%d rate=%.0f/s%n", sent, sent / (elapsed / 1e9));
    }

    /**
     * Counts the frames that pass the UDP 4791 filter: one recvmmsg per frame, or with {@code batched}
     * the daemon's own socket and batches (SoftPortTap's receive buffer, recvmmsg of
     * SoftPortTap.BATCH frames, each copied out as the tap copies it), which is the limit for the tap thread.
     */
    private static void baseline(int ifindex, int seconds, boolean batched) throws Exception {
        long n = 0;
        long first = 0;
        long last = 0;
        try (PacketSocket s = batched ? SoftPortTap.openSocket(ifindex)
                : PacketSocket.open(ifindex, ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 100)) {
            PacketSocket.Batch batch = new PacketSocket.Batch(batched ? SoftPortTap.BATCH : 1);
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            while (System.nanoTime() < end) {
                int got = s.receive(batch);
                if (got > 0) {
                    // The loop starts before the sender and stops after it: the rate is over the frames' own span.
                    last = System.nanoTime();
                    first = n == 0 ? last : first;
                    n += got;
                }
            }
        }
        System.out.printf("baseline_frames=%d rate=%.0f/s over %.2f s%s%n", n, n / Math.max(1e-9, (last - first) / 1e9),
                (last - first) / 1e9, batched ? " (batched)" : "");
    }

    /** A consumer connected over @cmdemux and listening on {@code ip:port}; says "listening" for the scripts. */
    static ControlClient listening(String name, InetAddress ip, int port) throws Exception {
        ControlClient c = ControlClient.connect(ControlClient.abstractAddress("cmdemux"), Duration.ofSeconds(10));
        try {
            c.hello(name);
            c.listen(ListenSpec.of(PortSpace.TCP, ip, port));
        } catch (Exception e) {
            c.close();
            throw e;
        }
        System.out.println("listening");
        return c;
    }

    private static void consume(InetAddress ip, int port, int seconds) throws Exception {
        long n = 0;
        try (ControlClient c = listening("bench-consumer", ip, port)) {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            long nextReport = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < end) {
                if (System.nanoTime() - nextReport >= 0) {
                    nextReport += 1_000_000_000L;
                    // scripts/bench-ingress compares the last one with the daemon's count
                    System.out.printf("delivered=%d%n", n);
                }
                DeliveredRequest r = c.nextRequest(Duration.ofMillis(200));
                if (r != null) {
                    n++;
                }
            }
        }
        System.out.printf("delivered=%d rate=%.0f/s%n", n, n / (double) seconds);
    }
}
