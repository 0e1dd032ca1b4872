package io.cmdemux.bench;

import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameCodec;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.Messages;
import io.cmdemux.control.protocol.ProtocolException;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Wire;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * scripts/bench-ingress's consumer: registers over @cmdemux like any consumer, then takes the
 * deliveries in the batches the socket gives them, on the event loop that reads them. Each REQ is
 * walked in place: its DELIVERY record must be there (the trace ID is read) and its META record
 * (the requester's comm ID is read), or it is counted as malformed. ControlClient instead builds a
 * DeliveredRequest per REQ (META decoded to addresses, the frame copied three times) and hands
 * each one to another thread through a queue; that is what `consume ... client` measures.
 */
final class BatchConsumer {
    /** META's localCommId (MetaCodec's layout). */
    private static final int META_LOCAL_COMM_ID = 16;

    private BatchConsumer() {}

    static void run(InetAddress ip, int port, int seconds) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("bench-consumer", true),
                EpollIoHandler.newFactory());
        Deliveries d = new Deliveries();
        try {
            Channel ch = new Bootstrap().group(group).channel(EpollDomainSocketChannel.class)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel c) {
                            c.pipeline().addLast(d);
                        }
                    })
                    .connect(new DomainSocketAddress("\0" + Wire.ABSTRACT_NAME)).sync().channel();
            call(ch, d, Frame.of(Wire.HELLO, 1, List.of(Record.text(Wire.R_CLIENT_NAME, "bench-consumer"))));
            call(ch, d, Frame.of(Wire.LISTEN, 2, List.of(Messages.listenSpec(ListenSpec.of(PortSpace.TCP, ip, port)))));
            System.out.println("listening");
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            while (System.nanoTime() < end && ch.isActive()) {
                Thread.sleep(1000);
                // scripts/bench-ingress compares the last line with the daemon's count
                System.out.printf("delivered=%d malformed=%d commIds=%08x%n", d.delivered, d.malformed, d.commIdSum);
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3000);
        }
        System.out.printf("delivered=%d malformed=%d rate=%.0f/s%n", d.delivered, d.malformed,
                d.delivered / (double) seconds);
    }

    private static void call(Channel ch, Deliveries d, Frame request) throws Exception {
        d.reply = new CompletableFuture<>();
        ch.writeAndFlush(Unpooled.wrappedBuffer(FrameCodec.encode(request)));
        Frame reply = d.reply.get(10, TimeUnit.SECONDS);
        if (reply.status() != Wire.OK) {
            throw new IOException(Wire.typeName(request.type()) + ": " + Wire.errnoName(reply.status()) + " "
                    + reply.text());
        }
    }

    /**
     * Splits the stream into frames; REQs are counted where they lie, anything else is decoded
     * and handed to {@link #call}.
     */
    private static final class Deliveries extends ByteToMessageDecoder {
        volatile CompletableFuture<Frame> reply;
        volatile long delivered;
        volatile long malformed;
        /** The requesters' comm IDs added up: the walk reads every REQ's META, not just its header. */
        volatile int commIdSum;

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws ProtocolException {
            long n = delivered;
            long bad = malformed;
            int sum = commIdSum;
            while (in.readableBytes() >= Wire.HEADER_SIZE) {
                int at = in.readerIndex();
                long length = in.getUnsignedInt(at + 8);
                if (length < Wire.HEADER_SIZE) {
                    throw new ProtocolException(Wire.EBADMSG, 8, "frame length " + length);
                }
                if (in.readableBytes() < length) {
                    break;
                }
                int type = in.getUnsignedByte(at + 1);
                boolean reply = (in.getUnsignedShort(at + 6) & Wire.FLAG_REPLY) != 0;
                if (type == Wire.REQ && !reply) {
                    int commId = localCommId(in, at, (int) length);
                    if (commId == -1) {
                        bad++;
                    } else {
                        n++;
                        sum += commId;
                    }
                } else {
                    byte[] bytes = new byte[(int) length];
                    in.getBytes(at, bytes);
                    reply(FrameCodec.decode(bytes, Wire.MAX_REPLY_FRAME));
                }
                in.readerIndex(at + (int) length);
            }
            delivered = n;
            malformed = bad;
            commIdSum = sum;
        }

        private void reply(Frame f) {
            CompletableFuture<Frame> r = reply;
            if (r != null) {
                r.complete(f);
            }
        }

        /** The META record's comm ID, or -1 when DELIVERY or META is missing or a record overruns the frame. */
        private static int localCommId(ByteBuf in, int at, int length) {
            int end = at + length;
            int p = at + Wire.HEADER_SIZE;
            boolean delivery = false;
            int commId = -1;
            while (p + Wire.RECORD_HEADER_SIZE <= end) {
                int type = in.getUnsignedShort(p);
                long rlen = in.getUnsignedInt(p + 4);
                if (rlen < Wire.RECORD_HEADER_SIZE || p + rlen > end) {
                    return -1;
                }
                if (type == Wire.R_DELIVERY && rlen >= Wire.RECORD_HEADER_SIZE + 8) {
                    delivery = in.getLong(p + Wire.RECORD_HEADER_SIZE) != 0; // trace IDs start at 1
                } else if (type == Wire.R_META && rlen >= Wire.RECORD_HEADER_SIZE + META_LOCAL_COMM_ID + 4) {
                    commId = in.getInt(p + Wire.RECORD_HEADER_SIZE + META_LOCAL_COMM_ID) & 0x7fffffff;
                }
                p += (int) rlen;
            }
            return delivery ? commId : -1;
        }
    }
}
