package io.cmdemux.daemon;

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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;

/** The daemon's small HTTP side: /metrics, /healthz, /readyz, the status page and whatever pages are added. */
public final class HttpEndpoints implements AutoCloseable {
    /** A page: status, content type, body, and extra headers. */
    public record Page(int status, String contentType, byte[] body, Map<String, String> headers) {
        public Page {
            headers = Map.copyOf(headers);
        }

        public Page(int status, String contentType, byte[] body) {
            this(status, contentType, body, Map.of());
        }

        public static Page text(int status, String s) {
            return new Page(status, "text/plain; charset=utf-8", s.getBytes(StandardCharsets.UTF_8));
        }
    }

    private final Map<String, Supplier<Page>> routes = new ConcurrentHashMap<>();
    private final Map<String, Supplier<Page>> slowRoutes = new ConcurrentHashMap<>();
    private final Map<String, Function<String, Page>> prefixes = new ConcurrentHashMap<>();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    /** Slow pages are built here, not on the event loop: drawing a picture runs Graphviz. */
    private final ExecutorService pages = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "cmdemux-http-pages");
        t.setDaemon(true);
        return t;
    });
    private Channel channel;

    /** A page cheap enough to build on the event loop (metrics, health). */
    public void route(String path, Supplier<Page> page) {
        routes.put(path, page);
    }

    /** A page built on the pages thread, so that it cannot hold up the cheap ones. */
    public void routeOffLoop(String path, Supplier<Page> page) {
        slowRoutes.put(path, page);
    }

    /**
     * Every path under {@code prefix} (ending in "/"), built on the pages thread; the page gets the rest of the path.
     */
    public void routePrefix(String prefix, Function<String, Page> page) {
        prefixes.put(prefix, page);
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

    private static String path(String uri) {
        int q = uri.indexOf('?');
        return q >= 0 ? uri.substring(0, q) : uri;
    }

    private static Page build(Supplier<Page> s) {
        try {
            return s.get();
        } catch (RuntimeException e) {
            return Page.text(500, "error: " + e + "\n");
        }
    }

    private Page slowPage(String path) {
        try {
            Supplier<Page> s = slowRoutes.get(path);
            if (s != null) {
                return s.get();
            }
            for (Map.Entry<String, Function<String, Page>> e : prefixes.entrySet()) {
                if (path.startsWith(e.getKey())) {
                    return e.getValue().apply(path.substring(e.getKey().length()));
                }
            }
            return Page.text(404, "no such page: " + path + "\n");
        } catch (RuntimeException e) {
            return Page.text(500, "error: " + e + "\n");
        }
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            String path = path(req.uri());
            Supplier<Page> cheap = routes.get(path);
            if (cheap != null) {
                respond(ctx, build(cheap));
                return;
            }
            try {
                pages.execute(() -> respond(ctx, slowPage(path)));
            } catch (RejectedExecutionException e) {
                respond(ctx, Page.text(503, "shutting down\n"));
            }
        }

        private void respond(ChannelHandlerContext ctx, Page p) {
            FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(p.status()), Unpooled.wrappedBuffer(p.body()));
            resp.headers().set(HttpHeaderNames.CONTENT_TYPE, p.contentType());
            resp.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, p.body().length);
            p.headers().forEach((k, v) -> resp.headers().set(k, v));
            ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
        pages.shutdownNow();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }
}
