package io.cmdemux.bench;

import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.Rejection;
import io.cmdemux.ingress.wire.PortSpace;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * scripts/soak's consumer in one pod: {@code soak-consume MARKER IP PORT SECONDS LOG [CHURN_PORT]}. It listens on
 * IP:PORT over @cmdemux and answers every delivered REQ with a REJ whose private data says "cmdemux-soak" and
 * MARKER, so that the requester's side of the wire tells which consumer each REQ reached, and it keeps its own
 * log of what it was handed (comm ID and wall-clock time, for the misdelivery check). With CHURN_PORT a second
 * consumer in the same process connects, listens on IP:CHURN_PORT, stays 100-500 ms, and goes, over and over
 * (MARKER + 1 on its REJs); what it had not answered when it left the daemon must reject itself. After SECONDS it
 * answers what it still has, until a second passes with nothing new.
 */
final class SoakConsumer {
    static final byte[] MAGIC = "cmdemux-soak".getBytes(StandardCharsets.US_ASCII);
    /** At most this long past SECONDS to answer what is left. */
    static final long DRAIN_NANOS = 300_000_000_000L;

    private SoakConsumer() {}

    static void run(int marker, InetAddress ip, int port, int seconds, String log, int churnPort) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        try (DataOutputStream out = new DataOutputStream(
                new BufferedOutputStream(new FileOutputStream(log), 1 << 16))) {
            Thread churn = null;
            long[] churned = new long[2];
            if (churnPort > 0) {
                churn = new Thread(() -> churn(marker + 1, ip, churnPort, end, out, churned), "churn");
                churn.start();
            }
            long n = 0;
            try (ControlClient c = IngressBench.listening("soak-" + marker, ip, port)) {
                // Past the end, on until a second with nothing handed over: what the daemon delivered while this
                // consumer was behind is answered too, so that the soak's count of the unanswered means drops.
                long drainEnd = end + DRAIN_NANOS;
                while (true) {
                    long now = System.nanoTime();
                    int got = answer(c, marker, out, Duration.ofMillis(now < end ? 200 : 1000));
                    n += got;
                    if (now >= drainEnd || now >= end && got == 0) {
                        break;
                    }
                }
            }
            if (churn != null) {
                churn.join();
            }
            System.out.printf("handed=%d churn-handed=%d churn-sessions=%d refused-as-forgotten=%d%n", n, churned[0],
                    churned[1], FORGOTTEN.get());
        }
    }

    /** Takes what was delivered, logs it, rejects it; the number taken. */
    private static int answer(ControlClient c, int marker, DataOutputStream out, Duration wait) throws Exception {
        List<DeliveredRequest> rs = c.nextRequests(256, wait);
        long now = System.currentTimeMillis();
        byte[] pd = new byte[MAGIC.length + 1];
        System.arraycopy(MAGIC, 0, pd, 0, MAGIC.length);
        pd[MAGIC.length] = (byte) marker;
        synchronized (out) {
            for (DeliveredRequest r : rs) {
                out.writeInt((int) r.meta().localCommId());
                out.writeByte(marker);
                out.writeLong(now);
            }
        }
        // The whole batch's REJs in one write, as a busy consumer answers (ControlClient.rejectAll); a REJ each with a
        // round trip held the consumers to some 500 a second on 2 busy cores, and the soak measured their backlog.
        List<Rejection> rejs = new java.util.ArrayList<>(rs.size());
        for (DeliveredRequest r : rs) {
            rejs.add(new Rejection(r.traceId(), 28, null, pd));
        }
        for (var f : c.rejectAll(rejs)) {
            try {
                f.join();
            } catch (java.util.concurrent.CompletionException e) {
                if (!(e.getCause() instanceof RequestRefused)) {
                    throw e;
                }
                // ENOENT: the daemon no longer holds it for us (only when deliveries on two of its threads raced past
                // the limit of outstanding ones, or the session timed out). Counted, not fatal: the soak goes on.
                FORGOTTEN.incrementAndGet();
            }
        }
        return rs.size();
    }

    private static final AtomicLong FORGOTTEN = new AtomicLong();

    private static void churn(int marker, InetAddress ip, int port, long end, DataOutputStream out, long[] counts) {
        while (System.nanoTime() < end) {
            long stay = System.nanoTime() + ThreadLocalRandom.current().nextLong(100, 500) * 1_000_000L;
            try (ControlClient c = ControlClient.connect(ControlClient.abstractAddress("cmdemux"),
                    Duration.ofSeconds(10))) {
                c.hello("soak-churn-" + marker);
                c.listen(ListenSpec.of(PortSpace.TCP, ip, port));
                counts[1]++;
                while (System.nanoTime() < Math.min(stay, end)) {
                    counts[0] += answer(c, marker, out, Duration.ofMillis(20));
                }
            } catch (Exception e) {
                System.err.println("churn consumer: " + e);
                sleep(100);
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static boolean isSoak(byte[] privateData) {
        if (privateData.length <= MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (privateData[i] != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    static int marker(byte[] privateData) {
        return privateData[MAGIC.length] & 0xff;
    }
}
