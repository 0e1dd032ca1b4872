package io.cmdemux.control.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cuts the byte stream into frames. A header that cannot be trusted (another version, a length
 * below the header or above the limit) or a frame that stops arriving half way ends the stream:
 * it becomes a {@link Violation} and every later byte is discarded. A frame whose header is sound
 * but whose body is not becomes a {@link BadFrame}; the stream stays in step and may go on.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    /** The stream is broken; the handler answers ERROR and closes. */
    public record Violation(ProtocolException error, String counter) {}

    /** One frame whose records did not decode; its type and seq are still known. */
    public record BadFrame(int type, int seq, ProtocolException error) {}

    private final int maxFrame;
    private final long stallMillis;
    private boolean broken;
    private ScheduledFuture<?> stallTimer;
    private long partialSince;

    public FrameDecoder(int maxFrame, long stallMillis) {
        this.maxFrame = maxFrame;
        this.stallMillis = stallMillis;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (broken) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < Wire.HEADER_SIZE) {
            partial(ctx, in);
            return;
        }
        int start = in.readerIndex();
        int version = in.getUnsignedByte(start);
        if (version != Wire.VERSION) {
            String why = "protocol version " + version + " is not supported (this daemon speaks " + Wire.VERSION + ")";
            fail(in, out, new ProtocolException(Wire.EPROTONOSUPPORT, 0, why), "bad-version");
            return;
        }
        long length = in.getUnsignedInt(start + 8);
        if (length < Wire.HEADER_SIZE) {
            fail(in, out, new ProtocolException(Wire.EBADMSG, 8,
                    "frame length " + length + " is shorter than the header"), "bad-length");
            return;
        }
        if (length > maxFrame) {
            fail(in, out, new ProtocolException(Wire.EMSGSIZE, 8,
                    "frame length " + length + " exceeds the limit of " + maxFrame), "too-large");
            return;
        }
        if (in.readableBytes() < length) {
            partial(ctx, in);
            return;
        }
        cancelStall();
        byte[] bytes = new byte[(int) length];
        in.readBytes(bytes);
        try {
            out.add(FrameCodec.decode(bytes, maxFrame));
        } catch (ProtocolException e) {
            int type = bytes[1] & 0xff;
            int seq = ((bytes[12] & 0xff) << 24) | ((bytes[13] & 0xff) << 16) | ((bytes[14] & 0xff) << 8)
                    | (bytes[15] & 0xff);
            out.add(new BadFrame(type, seq, e));
        }
    }

    private void fail(ByteBuf in, List<Object> out, ProtocolException e, String counter) {
        broken = true;
        cancelStall();
        in.skipBytes(in.readableBytes());
        out.add(new Violation(e, counter));
    }

    /**
     * A peer that sends half a frame and stops holds its connection forever and keeps bytes in
     * our buffer; after {@code stallMillis} without completing the frame, the stream is broken.
     */
    private void partial(ChannelHandlerContext ctx, ByteBuf in) {
        if (in.readableBytes() == 0 || stallTimer != null) {
            return;
        }
        partialSince = System.nanoTime();
        stallTimer = ctx.executor().schedule(() -> {
            stallTimer = null;
            if (!broken && actualReadableBytes() > 0) {
                broken = true;
                ctx.fireChannelRead(new Violation(new ProtocolException(Wire.EBADMSG,
                        "incomplete frame for " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - partialSince)
                                + " ms"), "stalled-frame"));
            }
        }, stallMillis, TimeUnit.MILLISECONDS);
    }

    private void cancelStall() {
        if (stallTimer != null) {
            stallTimer.cancel(false);
            stallTimer = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        cancelStall();
    }
}
