package io.cmdemux.control.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
 *
 * <p>With a budget of frames per turn, a peer that sends thousands of requests in one write gets that many handled,
 * then its socket is not read and the rest wait in the buffer, while a task queued behind whatever the event loop
 * already had to do (the deliveries to other consumers) takes the next share: one pipelined flood of 20,000 LISTENs
 * held the loop for 25-185 ms at once (docs/RELIABILITY.md, "Noisy neighbours").
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    /** The stream is broken; the handler answers ERROR and closes. */
    public record Violation(ProtocolException error, String counter) {}

    /** One frame whose records did not decode; its type and seq are still known. */
    public record BadFrame(int type, int seq, ProtocolException error) {}

    private final int maxFrame;
    private final long stallMillis;
    private final int framesPerTurn;
    private final Runnable overBudget;
    private int framesThisTurn;
    /** Over the budget: a task to go on is queued, and the channel's {@link ReadGate} holds reads off. */
    private boolean paused;
    private boolean broken;
    private ScheduledFuture<?> stallTimer;
    private long partialSince;

    /** Without a budget: every frame a read brings is handed on at once (the client's end). */
    public FrameDecoder(int maxFrame, long stallMillis) {
        this(maxFrame, stallMillis, Integer.MAX_VALUE, () -> { });
    }

    /**
     * @param framesPerTurn the frames handed on per read of the socket, or per task that goes on after one
     * @param overBudget told each time a turn ends at the budget with frames left over (to count it)
     */
    public FrameDecoder(int maxFrame, long stallMillis, int framesPerTurn, Runnable overBudget) {
        if (framesPerTurn < 1) {
            throw new IllegalArgumentException("framesPerTurn " + framesPerTurn);
        }
        this.maxFrame = maxFrame;
        this.stallMillis = stallMillis;
        this.framesPerTurn = framesPerTurn;
        this.overBudget = overBudget;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (broken) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (framesThisTurn >= framesPerTurn) {
            pause(ctx);
            return; // the frames stay in the buffer, where the task finds them
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
        framesThisTurn++;
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

    private void pause(ChannelHandlerContext ctx) {
        if (paused) {
            return;
        }
        paused = true;
        overBudget.run();
        ReadGate.of(ctx.channel()).hold(ReadGate.Reason.OVER_BUDGET);
        ctx.executor().execute(() -> goOn(ctx));
    }

    /** The next share of what is buffered; lifts its hold on reads once all of it is handed on. */
    private void goOn(ChannelHandlerContext ctx) {
        paused = false;
        framesThisTurn = 0;
        if (ctx.isRemoved() || !ctx.channel().isActive()) {
            return;
        }
        try {
            channelRead(ctx, Unpooled.EMPTY_BUFFER); // decodes what the buffer holds
        } catch (Exception e) {
            ctx.fireExceptionCaught(e);
        }
        ctx.fireChannelReadComplete(); // the end of a read to the handler: it flushes its replies
        if (!paused) {
            ReadGate.of(ctx.channel()).release(ReadGate.Reason.OVER_BUDGET);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (!paused) {
            framesThisTurn = 0;
        }
        super.channelReadComplete(ctx);
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
