package io.cmdemux.dataplane.source;

import io.cmdemux.dataplane.metrics.Metrics;
import io.cmdemux.dataplane.pipeline.Pipeline;
import io.cmdemux.dataplane.reply.FrameSender;
import io.cmdemux.netdev.ClassicBpf;
import io.cmdemux.netdev.PacketSocket;
import io.cmdemux.ingress.wire.RoceDecoder;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One soft RDMA port's receive side: an AF_PACKET socket on the port netdev that sees every RoCEv2
 * frame arriving there, including frames for macvlan/ipvlan children in other namespaces, on its
 * own thread ("one thread per blocking resource"). The same socket sends our answers.
 *
 * <p>Frames come in batches (one recvmmsg) and are answered in batches: the MRAs and REJs the tap
 * thread makes for a batch leave together in one sendmmsg when it is done, and only then are its
 * requests handed to their consumers (one event-loop wake-up and one write per consumer). So the
 * MRA of a delivered REQ is on the wire before its consumer can answer it, as in
 * cma_ib_req_handler, where the MRA goes out when the listener's handler returns. A batch that takes
 * longer than {@link #HANDOVER_NANOS} to decide is handed over in parts that long: a daemon that has just
 * started decides its first frames in the interpreter, some milliseconds each, and its first requests
 * would otherwise wait for the whole batch behind them.
 */
public final class SoftPortTap implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SoftPortTap.class);
    /** Frames taken by one recvmmsg(2): enough to empty a burst in a few calls, 4 MiB of native buffers. */
    public static final int BATCH = 64;
    /** Answers queued for one sendmmsg: an MRA per REQ of a full batch, and room for larger REJs. */
    static final int REPLY_BATCH = 2 * BATCH;
    static final int REPLY_BUFFER = 64 << 10;
    /**
     * The tap socket's receive buffer. A REQ costs about 1.3 KiB of it (its skb's truesize on a
     * veth), so 32 MiB holds some 25,000: a quarter second at 100k REQ/s while the tap thread waits
     * for a core or a GC pause. Beyond that the kernel drops and counts (drops_total{reason="tap-overrun"}).
     */
    static final int RECEIVE_BUFFER = 32 << 20;
    private static final long STATISTICS_NANOS = 1_000_000_000L;
    /**
     * The longest a decided request waits for the rest of its batch before its answers leave and it is handed to
     * its consumer. A warm tap decides a full batch in a fraction of this (docs/PERFORMANCE.md), so it hands over
     * once a batch; a cold one hands over every frame or few.
     */
    static final long HANDOVER_NANOS = 1_000_000L;
    /** drops_total's reason for frames the kernel dropped at a full tap socket (PACKET_STATISTICS tp_drops). */
    static final String TAP_OVERRUN = "tap-overrun";

    private final String device;
    private final PacketSocket socket;
    private final Pipeline pipeline;
    private final Runnable catchUp;
    private final Metrics metrics;
    private final FrameSender port;
    private final PacketSocket.SendBatch replies = new PacketSocket.SendBatch(REPLY_BATCH, REPLY_BUFFER);
    private final ThreadLocal<PacketSocket.SendBatch> otherThreads =
            ThreadLocal.withInitial(() -> new PacketSocket.SendBatch(REPLY_BATCH, REPLY_BUFFER));
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * Opens the socket for a tap on {@code ifindex}, in the calling thread's namespace (for a port
     * netdev in another namespace, call this on a NetnsExecutor thread there).
     */
    public static PacketSocket openSocket(int ifindex) throws IOException {
        return PacketSocket.open(ifindex, ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 200, RECEIVE_BUFFER);
    }

    /**
     * Starts reading {@code socket} on a thread of its own.
     *
     * @param catchUp run after each batch is read and before its frames are decided: brings the topology up to
     *     every change the kernel had announced by then (TopologyWatcher.catchUp), so that no frame is decided
     *     on a state older than its arrival
     */
    public SoftPortTap(String device, String netdev, PacketSocket socket, Pipeline pipeline, Metrics metrics,
            Runnable catchUp) {
        this.device = device;
        this.catchUp = catchUp;
        this.socket = socket;
        this.pipeline = pipeline;
        this.metrics = metrics;
        this.port = new FrameSender() {
            @Override
            public void send(byte[] frame) throws IOException {
                reply(frame);
            }

            @Override
            public void send(List<byte[]> frames) throws IOException {
                replyAll(frames);
            }
        };
        this.thread = new Thread(this::loop, "cmdemux-tap-" + device + "-" + netdev);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        PacketSocket.Batch batch = new PacketSocket.Batch(BATCH);
        long nextStatistics = System.nanoTime() + STATISTICS_NANOS;
        while (running) {
            int n;
            try {
                n = socket.receive(batch);
            } catch (IOException e) {
                if (running) {
                    log.warn("tap on {}: {}", device, e.getMessage());
                    metrics.drop("tap-error");
                }
                continue;
            }
            try {
                catchUp.run();
            } catch (RuntimeException e) {
                log.warn("tap on {}: catching up with the topology failed: {}", device, e.toString());
            }
            pipeline.holdDeliveries();
            try {
                try {
                    pipeline.prefetch(batch, n);
                } catch (RuntimeException e) {
                    // Only a warming of caches: a bug here must not cost the batch.
                    log.debug("prefetch on {} failed: {}", device, e.toString());
                }
                long part = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    if (i > 0 && System.nanoTime() - part > HANDOVER_NANOS) {
                        sendReplies();
                        pipeline.releaseDeliveries();
                        pipeline.holdDeliveries();
                        part = System.nanoTime();
                    }
                    try {
                        pipeline.onFrame(device, batch.frame(i), batch.receivedNanos(), port);
                    } catch (RuntimeException e) {
                        // A bug must not stop the port: count it, say it once per frame, keep reading.
                        metrics.drop("internal-error");
                        log.warn("frame on {} failed: {}", device, e.toString());
                    }
                }
            } finally {
                sendReplies();
                pipeline.releaseDeliveries();
            }
            long now = System.nanoTime();
            if (now - nextStatistics >= 0) {
                nextStatistics = now + STATISTICS_NANOS;
                countOverruns(socket, metrics, device);
            }
        }
        countOverruns(socket, metrics, device);
    }

    /**
     * Adds the frames the kernel dropped at {@code socket} since the last read to drops_total{reason="tap-overrun"}.
     */
    static void countOverruns(PacketSocket socket, Metrics metrics, String device) {
        try {
            long drops = socket.statistics().drops();
            if (drops > 0) {
                metrics.drop(TAP_OVERRUN, drops);
                log.warn("tap on {}: the kernel dropped {} frames at a full receive buffer", device, drops);
            }
        } catch (IOException e) {
            log.warn("tap on {}: {}", device, e.getMessage());
        }
    }

    /**
     * Sends one of our answers: queued for the batch's sendmmsg when the tap thread makes it, at
     * once from any other thread (a REP from the event loop, a retry from the timers).
     */
    private void reply(byte[] frame) throws IOException {
        if (Thread.currentThread() != thread) {
            socket.send(frame);
            return;
        }
        if (!replies.add(frame)) {
            sendReplies();
            if (!replies.add(frame)) {
                socket.send(frame); // larger than the whole batch buffer
            }
        }
    }

    /**
     * Answers made together on another thread (the REPs of a consumer's burst of ACCEPTs, on the event
     * loop): one sendmmsg for them all, from that thread's own batch.
     */
    private void replyAll(List<byte[]> frames) throws IOException {
        if (Thread.currentThread() == thread) {
            for (byte[] f : frames) {
                reply(f);
            }
            return;
        }
        PacketSocket.SendBatch batch = otherThreads.get();
        for (byte[] f : frames) {
            if (!batch.add(f)) {
                socket.send(batch);
                if (!batch.add(f)) {
                    socket.send(f); // larger than the whole batch buffer
                }
            }
        }
        socket.send(batch);
    }

    /** The queued answers, in the order they were made; a refusal is counted for each one that did not leave. */
    private void sendReplies() {
        int queued = replies.size();
        if (queued == 0) {
            return;
        }
        try {
            socket.send(replies);
        } catch (IOException e) {
            // Counted in frames_sent when queued. The kernel refuses from one frame on (those before it
            // left), so counting the whole batch here is an upper bound.
            metrics.drop("send-failed", queued);
            log.warn("tap on {}: {}", device, e.getMessage());
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        socket.close();
    }
}
