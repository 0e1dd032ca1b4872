package io.cmdemux.service.serve;

import java.io.IOException;

/** Puts a frame on the wire of one soft port; the tap's packet socket does it in production. */
@FunctionalInterface
public interface FrameSender {
    void send(byte[] frame) throws IOException;
}
