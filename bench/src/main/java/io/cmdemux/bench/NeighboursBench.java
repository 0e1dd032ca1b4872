package io.cmdemux.bench;

import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameCodec;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.ListenerInfo;
import io.cmdemux.control.protocol.Rejection;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.control.server.ControlLab;
import io.cmdemux.control.server.ControlServer;
import io.cmdemux.dataplane.consumer.Consumers;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.netdev.InetAddresses;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue 20 §3 and §4 as a measurement: an honest consumer's latency, from the daemon's hand-over of a request to
 * the consumer holding it, in a quiet phase and beside noisy neighbours, in one run: hostile clients on the host
 * socket and on {@code @cmdemux} in another pod (1,000 idle connections, half frames, lengths of 2^32 - 1, random
 * bytes, a LISTEN/UNLISTEN flood, listens on the honest pod's address, over and over), then consumers that stop
 * reading or hold thousands of unanswered requests, each given as many requests as the honest one. Needs root.
 *
 * <p>Usage: NeighboursBench [SECONDS_PER_PHASE] [RATE]; prints one line per phase.
 */
public final class NeighboursBench {
    private static final String IP_BAD = "10.213.9.2";
    private static final String IP_GOOD = "10.213.9.3";

    private NeighboursBench() {}

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int rate = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        try (ControlLab lab = new ControlLab("nb")) {
            String bad = lab.pod("bad", IP_BAD + "/24");
            String good = lab.pod("good", IP_GOOD + "/24");
            lab.start(ControlServer.Config.defaults().withLimits(128, 1024, 4096, 4096, 300), null);
            lab.server.onReject((trace, reason, ari, pd) -> { }); // the daemon's REJ path, without a wire
            lab.awaitReady(bad, IP_BAD);
            lab.awaitReady(good, IP_GOOD);
            // The honest consumer's client has an event loop of its own: the attackers' clients, in this same
            // process, share the lab's, and must not be what delays it.
            io.netty.channel.EventLoopGroup own = new io.netty.channel.MultiThreadIoEventLoopGroup(1,
                    io.netty.channel.epoll.EpollIoHandler.newFactory());
            ControlClient honest = lab.podClient(good, own);
            honest.hello("honest");
            honest.listen(ListenSpec.of(PortSpace.TCP, InetAddresses.parse(IP_GOOD), 7471));
            Listener l = lab.listener(x -> x.port() == 7471);
            Phase.run("warm-up (not counted)", lab, honest, l, seconds, rate, null, null);
            Phase.run("quiet", lab, honest, l, seconds, rate, null, null);
            Phase.run("hostile clients", lab, honest, l, seconds, rate, new Hostile(lab, bad), null);
            Phase.run("stalled consumers", lab, honest, l, seconds, rate, null, new Stalled(lab, bad));
            Phase.run("quiet again", lab, honest, l, seconds, rate, null, null);
            honest.close();
            own.shutdownGracefully(); // its thread is not a daemon: the JVM would not end
        }
    }

    /** One phase: RATE deliveries a second to the honest consumer, which takes and rejects each at once. */
    static final class Phase {
        static void run(String name, ControlLab lab, ControlClient honest, Listener l, int seconds, int rate,
                Hostile hostile, Stalled stalled) throws Exception {
            int n = seconds * rate;
            long[] handed = new long[n];
            long[] latency = new long[n];
            long base = System.nanoTime() / 1000 * 1000; // trace IDs of this phase: base + i
            Thread noise = hostile != null ? new Thread(hostile, "hostile") : null;
            if (noise != null) {
                noise.start();
            }
            if (stalled != null) {
                stalled.start();
            }
            int[] taken = {0};
            Thread consumer = new Thread(() -> {
                try {
                    long deadline = System.nanoTime() + (seconds + 5) * 1_000_000_000L;
                    while (taken[0] < n && System.nanoTime() < deadline) {
                        for (DeliveredRequest r : honest.nextRequests(256, Duration.ofMillis(50))) {
                            long now = System.nanoTime();
                            long i = r.traceId() - base;
                            honest.reject(new Rejection(r.traceId(), 28, null, null));
                            if (i < 0 || i >= n) {
                                continue; // an earlier phase's, late
                            }
                            latency[(int) i] = now - handed[(int) i];
                            taken[0]++;
                        }
                    }
                } catch (Exception e) {
                    System.err.println("honest consumer: " + e);
                }
            }, "honest");
            consumer.start();
            long start = System.nanoTime();
            long refused = 0;
            for (int i = 0; i < n; i++) {
                long due = start + i * 1_000_000_000L / rate;
                while (System.nanoTime() < due) {
                    LockSupport.parkNanos(due - System.nanoTime());
                }
                handed[i] = System.nanoTime();
                if (lab.server.deliver(ControlLab.delivery(base + i, l, IP_GOOD, i)) != Consumers.Handover.TAKEN) {
                    refused++;
                }
                if (stalled != null) {
                    stalled.deliver(i);
                }
            }
            consumer.join();
            if (hostile != null) {
                hostile.stop();
                noise.join();
            }
            if (stalled != null) {
                stalled.stop();
            }
            long[] got = Arrays.stream(latency).filter(x -> x > 0).sorted().toArray();
            System.gc();
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            System.out.printf("%-22s sent=%d taken=%d refused=%d p50=%.1fus p99=%.1fus p999=%.1fus max=%.1fus"
                    + " heap-after-gc=%dMiB%s%s%n", name, n, got.length, refused, q(got, 0.50), q(got, 0.99),
                    q(got, 0.999), got.length == 0 ? 0 : got[got.length - 1] / 1e3, heap >> 20,
                    hostile == null ? "" : " " + hostile.summary(), stalled == null ? "" : " " + stalled.summary());
        }

        private static double q(long[] sorted, double p) {
            return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (p * sorted.length))] / 1e3;
        }
    }

    /** The attacks of HostileClientsAsRootTest, over and over until stopped, on a pool of their own. */
    static final class Hostile implements Runnable {
        private final ControlLab lab;
        private final String pod;
        private volatile boolean stop;
        private long rounds;
        private long refused;
        private long spoofsRefused;
        private volatile String firstRefusal;

        Hostile(ControlLab lab, String pod) {
            this.lab = lab;
            this.pod = pod;
        }

        void stop() {
            stop = true;
        }

        String summary() {
            return "(LISTEN/UNLISTEN=" + rounds + ", idle connections refused at connect=" + refused
                    + ", spoofs refused=" + spoofsRefused + (firstRefusal == null ? "" : ", failed: " + firstRefusal)
                    + ")";
        }

        /**
         * The set of HostileClientsAsRootTest once, at the phase's start (issue 20 §4): 1,000 idle connections from
         * the pod (held to the end; beyond the namespace's 128 they are cut), 20 half frames and 20 lengths of
         * 2^32 - 1 on the host socket, 50 random-byte writers on both sockets, 2,000 LISTEN/UNLISTEN and 100
         * listens on the honest pod's address.
         */
        @Override
        public void run() {
            List<ControlClient> held = new ArrayList<>();
            Random rnd = new Random(20);
            try {
                for (int i = 0; i < 1000 && !stop; i++) {
                    try {
                        held.add(lab.podClient(pod));
                    } catch (Exception e) {
                        refused++; // beyond the namespace's limit: counted by the server too
                    }
                }
                for (int i = 0; i < 20; i++) {
                    ControlClient half = lab.hostSocketClient(null);
                    held.add(half);
                    raw(half, new byte[] {1, 1, 0}); // half a header, then silence
                    byte[] huge = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
                    ByteBuffer.wrap(huge).putInt(8, 0xffffffff);
                    try (ControlClient h = lab.hostSocketClient(null)) {
                        raw(h, huge);
                    }
                }
                for (int i = 0; i < 50; i++) {
                    byte[] junk = new byte[1 + rnd.nextInt(4096)];
                    rnd.nextBytes(junk);
                    try (ControlClient c = lab.hostSocketClient(null)) {
                        raw(c, junk);
                    }
                }
                // The pod's own slots are taken by the idle ones: the floods come from the host socket, whose
                // peers the daemon places in the host namespace.
                try (ControlClient c = lab.hostSocketClient(null)) {
                    for (int k = 0; k < 2000; k++) {
                        ListenerInfo li = c.listen(ListenSpec.of(PortSpace.TCP, InetAddresses.parse("0.0.0.0"),
                                9000 + k % 50));
                        c.unlisten(li.listenerId());
                        rounds++;
                    }
                }
                try (ControlClient c = lab.hostSocketClient(null)) {
                    for (int k = 0; k < 100; k++) {
                        try {
                            c.listen(ListenSpec.of(PortSpace.TCP, InetAddresses.parse(IP_GOOD), 7472 + k));
                        } catch (io.cmdemux.control.protocol.RequestRefused e) {
                            spoofsRefused++; // EADDRNOTAVAIL, as it must be
                        }
                    }
                }
                while (!stop) {
                    LockSupport.parkNanos(10_000_000);
                }
            } catch (Exception e) {
                firstRefusal = String.valueOf(e);
            } finally {
                held.forEach(ControlClient::close);
            }
        }

        private static void raw(ControlClient c, byte[] bytes) {
            c.channel().writeAndFlush(Unpooled.wrappedBuffer(bytes)).awaitUninterruptibly(2000);
        }
    }

    /** Two consumers in the other pod, one never reading, one never answering; each gets what the honest one does. */
    static final class Stalled {
        private final ControlLab lab;
        private final String pod;
        private ControlClient silent;
        private ControlClient hoarder;
        private Listener silentListener;
        private Listener hoarderListener;
        private volatile boolean stop;
        private Thread reader;
        private long backlog;
        private long hoarded;

        Stalled(ControlLab lab, String pod) {
            this.lab = lab;
            this.pod = pod;
        }

        void start() throws Exception {
            silent = lab.podClient(pod);
            silent.listen(ListenSpec.of(PortSpace.TCP, InetAddresses.parse(IP_BAD), 7481));
            silent.channel().config().setAutoRead(false); // stops reading: its socket fills
            hoarder = lab.podClient(pod);
            hoarder.listen(ListenSpec.of(PortSpace.TCP, InetAddresses.parse(IP_BAD), 7482));
            silentListener = lab.listener(x -> x.port() == 7481);
            hoarderListener = lab.listener(x -> x.port() == 7482);
            reader = new Thread(() -> {
                while (!stop) {
                    try {
                        hoarded += hoarder.nextRequests(256, Duration.ofMillis(50)).size();
                    } catch (Exception e) {
                        return;
                    }
                }
            }, "hoarder");
            reader.start();
        }

        void deliver(int i) {
            long t = 1L << 40 | i;
            if (lab.server.deliver(ControlLab.delivery(t, silentListener, IP_BAD, i)) != Consumers.Handover.TAKEN) {
                backlog++;
            }
            if (lab.server.deliver(ControlLab.delivery(t | 1L << 41, hoarderListener, IP_BAD, i))
                    != Consumers.Handover.TAKEN) {
                backlog++;
            }
        }

        void stop() throws InterruptedException {
            stop = true;
            reader.join();
            silent.close();
            hoarder.close();
        }

        String summary() {
            return "(stalled: refused as backlog=" + backlog + ", held unanswered by the hoarder=" + hoarded + ")";
        }
    }
}
