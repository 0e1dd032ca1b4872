package io.cmdemux.ingress.wire;

/** What decoding one frame gives: a CM message, or where and why the frame is not one. */
public sealed interface FrameResult permits FrameResult.Decoded, FrameResult.Failed {

    /**
     * {@code mad} is the MAD's 256 bytes as they were on the wire, reserved bits too, which the records do not keep.
     */
    record Decoded(RoceFrame frame, Octets mad) implements FrameResult {
        public Decoded {
            if (mad.length() != Mad.SIZE) {
                throw new IllegalArgumentException("a MAD has " + Mad.SIZE + " bytes, not " + mad.length());
            }
        }
    }

    /** {@code offset} is the byte of the frame at which decoding stopped. */
    record Failed(int offset, String reason) implements FrameResult {}
}
