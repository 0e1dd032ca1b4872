package io.cmdemux.ingress.capture;

import io.cmdemux.ingress.wire.FrameResult;

/** One record of a capture file and what it decoded to. {@code index} counts from 1, like tshark's frame numbers. */
public record CapturedFrame(long index, long timestampNanos, int linktype, int length, FrameResult result) {}
