package io.cmdemux.service.serve;

import io.cmdemux.netdev.ClassicBpf;
import io.cmdemux.netdev.PacketSocket;
import io.cmdemux.ingress.wire.RoceDecoder;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One soft RDMA port's receive side: an AF_PACKET socket on the port netdev that sees every RoCEv2
 * frame arriving there, including frames for macvlan/ipvlan children in other namespaces, on its
 * own thread ("one thread per blocking resource"). The same socket sends our answers.
 */
public final class SoftPortTap implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SoftPortTap.class);

    private final String device;
    private final PacketSocket socket;
    private final Pipeline pipeline;
    private final Metrics metrics;
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * Opens the socket for a tap on {@code ifindex}, in the calling thread's namespace (for a port
     * netdev in another namespace, call this on a NetnsExecutor thread there).
     */
    public static PacketSocket openSocket(int ifindex) throws IOException {
        return PacketSocket.open(ifindex, ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 200);
    }

    /** Starts reading {@code socket} on a thread of its own. */
    public SoftPortTap(String device, String netdev, PacketSocket socket, Pipeline pipeline, Metrics metrics) {
        this.device = device;
        this.socket = socket;
        this.pipeline = pipeline;
        this.metrics = metrics;
        this.thread = new Thread(this::loop, "cmdemux-tap-" + device + "-" + netdev);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        while (running) {
            PacketSocket.Frame f;
            try {
                f = socket.receive();
            } catch (IOException e) {
                if (running) {
                    log.warn("tap on {}: {}", device, e.getMessage());
                    metrics.drop("tap-error");
                }
                continue;
            }
            if (f == null) {
                continue;
            }
            try {
                pipeline.onFrame(device, f.bytes(), f.receivedNanos(), socket::send);
            } catch (RuntimeException e) {
                // A bug must not stop the port: count it, say it once per frame, keep reading.
                metrics.drop("internal-error");
                log.warn("frame on {} failed: {}", device, e.toString());
            }
        }
    }

    public void send(byte[] frame) throws IOException {
        socket.send(frame);
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
