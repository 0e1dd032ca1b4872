package io.cmdemux.bench;

import io.cmdemux.control.protocol.Acceptance;
import io.cmdemux.control.protocol.CmEventInfo;
import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.RequestRefused;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code consume IP PORT SECONDS accept} of scripts/bench-handshake: a consumer in a pod that
 * answers every delivered REQ with an ACCEPT, as {@code listen --accept} does, but pipelined: it
 * takes whatever has been delivered, sends all their ACCEPTs in one write, and checks the replies
 * as they come instead of waiting for each. It counts what the daemon confirmed: ACCEPTs answered
 * with a local comm ID, refused ones, and the ESTABLISHED events that the peers' RTUs caused. It
 * times the way in (the REQ's send time, from its private data, to its delivery here) and the
 * ACCEPTs' round trips.
 */
final class AcceptingConsumer {
    private static final int BATCH = 256;

    private AcceptingConsumer() {}

    private static List<CompletableFuture<Integer>> acceptOneByOne(ControlClient c, List<Acceptance> as) {
        List<CompletableFuture<Integer>> out = new ArrayList<>(as.size());
        for (Acceptance a : as) {
            try {
                out.add(CompletableFuture.completedFuture(c.accept(a)));
            } catch (IOException | RequestRefused e) {
                out.add(CompletableFuture.failedFuture(e));
            }
        }
        return out;
    }

    /**
     * @param serial accept one request at a time, each waiting for its reply, as the consumer before
     *     pipelining did (for comparison)
     */
    static void run(InetAddress ip, int port, int seconds, boolean serial) throws Exception {
        long delivered = 0;
        long established = 0;
        boolean measuring = false; // once the load's warm-up is over
        AtomicLong accepted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        HandshakeLoad.Latencies in = new HandshakeLoad.Latencies(1 << 20);
        HandshakeLoad.Latencies acceptRtt = new HandshakeLoad.Latencies(1 << 20);
        try (ControlClient c = IngressBench.listening("bench-acceptor", ip, port)) {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            while (System.nanoTime() < end) {
                List<DeliveredRequest> rs = c.nextRequests(BATCH, Duration.ofMillis(200));
                List<Acceptance> as = new ArrayList<>(rs.size());
                long now = System.nanoTime();
                for (DeliveredRequest r : rs) {
                    delivered++;
                    long t = HandshakeLoad.sentAt(r.frame());
                    if (t >= 0) {
                        in.add(now - t);
                        measuring = true;
                    }
                    as.add(new Acceptance(r.traceId(), 0x100 + (int) (delivered & 0xffff), 0, 1, 1, 7, false, true,
                            new byte[0]));
                }
                long sent = System.nanoTime();
                boolean timed = measuring;
                for (CompletableFuture<Integer> f : serial ? acceptOneByOne(c, as) : c.acceptAll(as)) {
                    f.whenComplete((comm, e) -> {
                        if (e == null) {
                            accepted.incrementAndGet();
                            if (timed) {
                                acceptRtt.add(System.nanoTime() - sent);
                            }
                        } else if (refused.getAndIncrement() == 0) {
                            System.err.println("ACCEPT failed: " + e.getCause());
                        }
                    });
                }
                CmEventInfo ev;
                while ((ev = c.nextEvent(Duration.ZERO)) != null) {
                    if (ev.event() == CmEventInfo.ESTABLISHED) {
                        established++;
                    }
                }
            }
        }
        System.out.printf("delivered=%d accepted=%d refused=%d established=%d; counted:"
                + " REQ sent to delivered p50=%.2fms p99=%.2fms, ACCEPT round trip p50=%.2fms p99=%.2fms%n", delivered,
                accepted.get(), refused.get(), established, in.quantileMillis(0.5), in.quantileMillis(0.99),
                acceptRtt.quantileMillis(0.5), acceptRtt.quantileMillis(0.99));
    }
}
