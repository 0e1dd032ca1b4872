package io.cmdemux.dataplane.reply;

import java.io.IOException;
import java.util.List;

/** Puts a frame on the wire of one soft port; the tap's packet socket does it in production. */
@FunctionalInterface
public interface FrameSender {
    void send(byte[] frame) throws IOException;

    /**
     * Puts {@code frames} on the wire in order; the tap's socket sends them with one sendmmsg.
     *
     * @throws IOException when one is refused; those after it are not sent
     */
    default void send(List<byte[]> frames) throws IOException {
        for (byte[] f : frames) {
            send(f);
        }
    }
}
