package io.cmdemux.dataplane.reply;

import io.cmdemux.dataplane.metrics.Metrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The answers a thread (a consumer's event loop) makes while it handles one read of that consumer's requests, held
 * until the read is done and then sent together: a burst of ACCEPTs or REJECTs costs one sendmmsg per soft port,
 * not a sendto each. A consumer that answers in bursts (ControlClient.acceptAll, rejectAll) sends a read's worth
 * at once, and a sendto per answer was most of what its REJECTs cost the daemon's event loop (docs/PERFORMANCE.md).
 */
public final class HeldFrames {
    private static final Logger log = LoggerFactory.getLogger(HeldFrames.class);

    /** @param kind frames_sent's kind for it: rep, rej, sidr-rep */
    private record Held(FrameSender port, byte[] frame, String kind) {}

    private final Metrics metrics;
    private final ThreadLocal<List<Held>> held = ThreadLocal.withInitial(ArrayList::new);

    public HeldFrames(Metrics metrics) {
        this.metrics = metrics;
    }

    /** Keeps {@code frame} for {@link #send} on this thread. */
    public void hold(FrameSender port, byte[] frame, String kind) {
        held.get().add(new Held(port, frame, kind));
    }

    /** Sends what this thread holds, each port's frames in one call, and counts them in frames_sent (or as failed). */
    public void send() {
        List<Held> out = held.get();
        while (!out.isEmpty()) {
            // Nearly always one port; a frame per soft port otherwise, each port's in one call.
            FrameSender port = out.get(0).port();
            List<Held> mine = new ArrayList<>(out.size());
            out.removeIf(h -> h.port() == port && mine.add(h));
            List<byte[]> frames = new ArrayList<>(mine.size());
            for (Held h : mine) {
                frames.add(h.frame());
            }
            try {
                port.send(frames);
                for (Held h : mine) {
                    metrics.sent(h.kind());
                }
            } catch (IOException e) {
                metrics.drop("send-failed", frames.size());
                log.warn("sending {} answers failed: {}", frames.size(), e.getMessage());
            }
        }
    }
}
