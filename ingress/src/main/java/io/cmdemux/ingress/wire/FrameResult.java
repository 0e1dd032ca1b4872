package io.cmdemux.ingress.wire;

/** What decoding one frame gives: a CM message, or where and why the frame is not one. */
public sealed interface FrameResult permits FrameResult.Decoded, FrameResult.Failed {

    record Decoded(RoceFrame frame) implements FrameResult {}

    /** {@code offset} is the byte of the frame at which decoding stopped. */
    record Failed(int offset, String reason) implements FrameResult {}
}
