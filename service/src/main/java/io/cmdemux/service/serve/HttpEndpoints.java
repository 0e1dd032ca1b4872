package io.cmdemux.service.serve;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** The daemon's small HTTP side: /metrics, /healthz, /readyz and whatever pages are added. */
public final class HttpEndpoints implements AutoCloseable {
    /** A page: status, content type, body. */
    public record Page(int status, String contentType, byte[] body) {
        public static Page text(int status, String s) {
            return new Page(status, "text/plain; charset=utf-8", s.getBytes(StandardCharsets.UTF_8));
        }
    }

    private final Map<String, Supplier<Page>> routes = new ConcurrentHashMap<>();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private Channel channel;

    public void route(String path, Supplier<Page> page) {
        routes.put(path, page);
    }

    public InetSocketAddress start(InetSocketAddress address) throws InterruptedException {
        channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(8192), new Handler());
                    }
                }).bind(address).sync().channel();
        return (InetSocketAddress) channel.localAddress();
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            String path = req.uri();
            int q = path.indexOf('?');
            if (q >= 0) {
                path = path.substring(0, q);
            }
            Supplier<Page> s = routes.get(path);
            Page p;
            try {
                p = s == null ? Page.text(404, "no such page: " + path + "\n") : s.get();
            } catch (RuntimeException e) {
                p = Page.text(500, "error: " + e + "\n");
            }
            FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(p.status()),
                    Unpooled.wrappedBuffer(p.body()));
            resp.headers().set(HttpHeaderNames.CONTENT_TYPE, p.contentType());
            resp.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, p.body().length);
            ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }
}
