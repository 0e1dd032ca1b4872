package io.cmdemux.control.server;

import io.cmdemux.control.protocol.FrameEncoder;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.namespaces.NetnsId;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * On the accept loop of one namespace's {@code @cmdemux}, before a new connection is handed to a serving loop:
 * takes one of the namespace's connection slots for it, or refuses it right there. A refused connection never
 * reaches the loops that deliver requests: it is registered on the accept loop itself with nothing in its
 * pipeline but the ERROR it is sent ({@link Farewell}) and a sink for what it still writes. A pod that opens a
 * thousand connections beyond its limit had each built a consumer's pipeline on a serving loop first, between
 * the deliveries (issue 20 §4).
 */
final class AdmissionGate extends ChannelInboundHandlerAdapter {
    private final NetnsId netns;
    private final Connections connections;
    private final Refused refused = new Refused();

    AdmissionGate(NetnsId netns, Connections connections) {
        this.netns = netns;
        this.connections = connections;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel child = (Channel) msg;
        if (connections.admitAtAccept(child, netns)) {
            ctx.fireChannelRead(child); // on to the ServerBootstrap's acceptor, which registers it on a serving loop
            return;
        }
        child.pipeline().addLast(FrameEncoder.INSTANCE, refused);
        ctx.channel().eventLoop().register(child).addListener(r -> {
            if (!r.isSuccess()) {
                child.unsafe().closeForcibly();
            }
        });
    }

    /** A refused connection's whole pipeline: its ERROR when it becomes active, and whatever it sends dropped. */
    @io.netty.channel.ChannelHandler.Sharable
    private final class Refused extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            connections.refuse(ctx.channel(), Connections.TOO_MANY, Wire.EAGAIN, Connections.TOO_MANY_TEXT);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a reset peer: nothing is owed to it
        }
    }
}
