package io.cmdemux.control.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/** Frame → bytes. Already encoded buffers (REQ deliveries, encoded off the event loop) pass through untouched. */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToByteEncoder<Frame> {
    public static final FrameEncoder INSTANCE = new FrameEncoder();

    private FrameEncoder() {
        super(Frame.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame msg, ByteBuf out) {
        out.writeBytes(FrameCodec.encode(msg));
    }
}
