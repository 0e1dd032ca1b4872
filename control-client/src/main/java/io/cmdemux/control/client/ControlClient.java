package io.cmdemux.control.client;

import io.cmdemux.control.protocol.Acceptance;
import io.cmdemux.control.protocol.CmEventInfo;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameDecoder;
import io.cmdemux.control.protocol.FrameEncoder;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.ListenerInfo;
import io.cmdemux.control.protocol.Messages;
import io.cmdemux.control.protocol.ProtocolException;
import io.cmdemux.control.protocol.QueryArgs;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Rejection;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A consumer's (or the CLI's) end of the control protocol, with blocking calls: each request
 * waits for the reply with its seq; REQ deliveries queue up for {@link #nextRequest}. Thread-safe.
 */
public final class ControlClient implements AutoCloseable {
    private final EventLoopGroup group;
    private final boolean ownGroup;
    private final Channel channel;
    private final ClientHandler state;
    private final Map<Integer, CompletableFuture<Frame>> pending;
    private final BlockingQueue<Object> requests;
    private final AtomicInteger seq = new AtomicInteger();

    private static final Object CLOSED = new Object();

    private ControlClient(EventLoopGroup group, boolean ownGroup, Channel channel, ClientHandler state) {
        this.group = group;
        this.ownGroup = ownGroup;
        this.channel = channel;
        this.state = state;
        this.pending = state.pending;
        this.requests = state.requests;
    }

    /** @cmdemux (or another abstract name) in the caller's own namespace. */
    public static DomainSocketAddress abstractAddress(String name) {
        return new DomainSocketAddress("\0" + name);
    }

    public static ControlClient connect(DomainSocketAddress address, Duration timeout) throws IOException {
        EventLoopGroup g = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("cmdemux-client", true),
                EpollIoHandler.newFactory());
        try {
            return connect(address, timeout, g, true, EpollDomainSocketChannel::new);
        } catch (IOException | RuntimeException e) {
            g.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * @param group an event loop group the caller owns and closes
     * @param socketFactory makes the socket; a factory that runs on a NetnsExecutor thread makes
     *     a client of another namespace
     */
    public static ControlClient connect(DomainSocketAddress address, Duration timeout, EventLoopGroup group,
            Callable<? extends Channel> socketFactory) throws IOException {
        return connect(address, timeout, group, false, socketFactory);
    }

    private static ControlClient connect(DomainSocketAddress address, Duration timeout, EventLoopGroup group,
            boolean ownGroup,
            Callable<? extends Channel> socketFactory) throws IOException {
        ClientHandler handler = new ClientHandler();
        ChannelFuture f = new Bootstrap()
                .group(group)
                .channelFactory(() -> {
                    try {
                        return socketFactory.call();
                    } catch (Exception e) {
                        throw new ChannelException("cannot create the socket: " + e.getMessage(), e);
                    }
                })
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new FrameDecoder(Wire.MAX_REPLY_FRAME, 30_000),
                                FrameEncoder.INSTANCE, handler);
                    }
                })
                .connect(address);
        if (!f.awaitUninterruptibly(timeout.toMillis() + 1000)) {
            f.cancel(false);
            throw new IOException("connecting to " + display(address) + " timed out");
        }
        if (!f.isSuccess()) {
            // Netty appends the address, raw NUL and all; say it once, readably.
            String why = String.valueOf(f.cause().getMessage()).replace(": " + address.path(), "");
            throw new IOException("cannot connect to " + display(address) + ": " + why, f.cause());
        }
        ControlClient c = new ControlClient(group, ownGroup, f.channel(), handler);
        f.channel().closeFuture().addListener(x -> handler.onClosed());
        return c;
    }

    static String display(DomainSocketAddress a) {
        return a.path().startsWith("\0") ? "@" + a.path().substring(1) : a.path();
    }

    // ---- requests ----

    /** Sends a request (its seq is set here) and waits for the reply, whatever its status. */
    public Frame call(int type, List<Record> records, Duration timeout) throws IOException {
        CompletableFuture<Frame> reply = send(List.of(new Outgoing(type, records))).get(0);
        try {
            return reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for the " + Wire.typeName(type) + " reply", e);
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("no reply to " + Wire.typeName(type) + " within " + timeout.toMillis() + " ms");
        } finally {
            reply.cancel(false); // forgets the seq if no reply came
        }
    }

    private record Outgoing(int type, List<Record> records) {}

    /**
     * Sends requests without waiting for their replies: one event-loop task and one flush for all
     * of them, so a batch costs one write(2) and one wake-up of the loop. The daemon answers in
     * order, each reply naming its request's seq; each future completes with its reply (whatever
     * its status), or exceptionally with an IOException when the connection closes first.
     */
    private List<CompletableFuture<Frame>> send(List<Outgoing> requests) {
        List<Frame> frames = new ArrayList<>(requests.size());
        List<CompletableFuture<Frame>> replies = new ArrayList<>(requests.size());
        for (Outgoing o : requests) {
            int s = seq.incrementAndGet();
            CompletableFuture<Frame> reply = new CompletableFuture<>();
            pending.put(s, reply);
            reply.whenComplete((f, e) -> pending.remove(s));
            frames.add(Frame.of(o.type(), s, o.records()));
            replies.add(reply);
        }
        // After the puts: a close from now on fails them through onClosed; one before, here.
        if (!channel.isActive()) {
            IOException gone = new IOException(closeReason());
            replies.forEach(r -> r.completeExceptionally(gone));
            return replies;
        }
        channel.eventLoop().execute(() -> {
            for (int i = 0; i < frames.size(); i++) {
                CompletableFuture<Frame> reply = replies.get(i);
                channel.write(frames.get(i)).addListener(w -> {
                    if (!w.isSuccess()) {
                        reply.completeExceptionally(new IOException("cannot send: "
                                + w.cause().getMessage(), w.cause()));
                    }
                });
            }
            channel.flush();
        });
        return replies;
    }

    private Frame ok(int type, List<Record> records) throws IOException, RequestRefused {
        Frame r = call(type, records, Duration.ofSeconds(30));
        if (r.status() != Wire.OK) {
            throw new RequestRefused(r.status(), r.text());
        }
        return r;
    }

    /** Says who we are; the daemon answers where it placed us. */
    public ConsumerInfo hello(String clientName) throws IOException, RequestRefused {
        List<Record> rs = clientName == null ? List.of() : List.of(Record.text(Wire.R_CLIENT_NAME, clientName));
        try {
            return Messages.consumer(ok(Wire.HELLO, rs));
        } catch (ProtocolException e) {
            throw new IOException("bad HELLO reply: " + e.getMessage(), e);
        }
    }

    public ListenerInfo listen(ListenSpec spec) throws IOException, RequestRefused {
        Frame r = ok(Wire.LISTEN, List.of(Messages.listenSpec(spec)));
        try {
            return Messages.listener(Messages.required(r, Wire.R_LISTENER, "LISTENER"));
        } catch (ProtocolException e) {
            throw new IOException("bad LISTEN reply: " + e.getMessage(), e);
        }
    }

    public void unlisten(long listenerId) throws IOException, RequestRefused {
        ok(Wire.UNLISTEN, List.of(Messages.listenerId(listenerId)));
    }

    public void reject(Rejection r) throws IOException, RequestRefused {
        Frame f = Messages.rejectFrame(0, r);
        ok(Wire.REJECT, f.records());
    }

    public JsonNode query(QueryKind kind, ObjectNode args) throws IOException, RequestRefused {
        List<Record> rs = new ArrayList<>();
        rs.add(Messages.query(kind));
        if (args != null) {
            rs.add(Record.mandatory(Wire.R_JSON, QueryArgs.JSON.writeValueAsBytes(args)));
        }
        Frame r = ok(Wire.QUERY, rs);
        try {
            return QueryArgs.JSON.readTree(Messages.required(r, Wire.R_JSON, "JSON").value());
        } catch (ProtocolException e) {
            throw new IOException("bad QUERY reply: " + e.getMessage(), e);
        }
    }

    /**
     * The next delivered request, or null when none arrives within {@code timeout}.
     *
     * @throws IOException when the connection has closed and no request is left
     */
    public DeliveredRequest nextRequest(Duration timeout) throws IOException, InterruptedException {
        Object o = requests.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (o == CLOSED) {
            requests.add(CLOSED); // keep telling later callers
            throw new IOException(closeReason());
        }
        return (DeliveredRequest) o;
    }

    /**
     * The requests delivered so far, up to {@code max}, waiting up to {@code timeout} for the first;
     * empty when none arrives in time. One wake-up takes a whole burst.
     *
     * @throws IOException when the connection has closed and no request is left
     */
    public List<DeliveredRequest> nextRequests(int max, Duration timeout) throws IOException, InterruptedException {
        DeliveredRequest first = nextRequest(timeout);
        if (first == null) {
            return List.of();
        }
        List<Object> more = new ArrayList<>();
        requests.drainTo(more, max - 1);
        List<DeliveredRequest> out = new ArrayList<>(1 + more.size());
        out.add(first);
        for (Object o : more) {
            if (o == CLOSED) {
                requests.add(CLOSED); // the requests before it are still answered; the next call throws
                break;
            }
            out.add((DeliveredRequest) o);
        }
        return out;
    }

    /** Answers a delivered request with a REP; returns the daemon's local comm ID for the connection. */
    public int accept(Acceptance a) throws IOException, RequestRefused {
        Frame reply = ok(Wire.ACCEPT, Messages.acceptFrame(0, a).records());
        try {
            return Messages.session(reply);
        } catch (ProtocolException e) {
            throw new IOException("ACCEPT reply: " + e.getMessage(), e);
        }
    }

    /**
     * Answers several delivered requests with REPs without waiting for the daemon's replies (a
     * consumer that waited for each would pay a round trip per connection). Each future completes
     * with the daemon's local comm ID, or exceptionally with the {@link RequestRefused} or
     * IOException that {@link #accept} would throw.
     */
    public List<CompletableFuture<Integer>> acceptAll(List<Acceptance> acceptances) {
        return sendAll(Wire.ACCEPT, acceptances, a -> Messages.acceptFrame(0, a), ControlClient::acceptedCommId);
    }

    /**
     * Answers several delivered requests with REJs without waiting for the daemon's replies, as
     * {@link #acceptAll} does with REPs. Each future completes when the daemon took the REJ, or
     * exceptionally with the {@link RequestRefused} or IOException that {@link #reject} would throw.
     */
    public List<CompletableFuture<Void>> rejectAll(List<Rejection> rejections) {
        return sendAll(Wire.REJECT, rejections, r -> Messages.rejectFrame(0, r), f -> {
            if (f.status() != Wire.OK) {
                throw new CompletionException(new RequestRefused(f.status(), f.text()));
            }
            return null;
        });
    }

    /** One request of {@code type} per item, sent as one batch; each reply read by {@code answer}. */
    private <T, R> List<CompletableFuture<R>> sendAll(int type, List<T> items,
            java.util.function.Function<T, Frame> frame, java.util.function.Function<Frame, R> answer) {
        List<Outgoing> out = new ArrayList<>(items.size());
        for (T item : items) {
            out.add(new Outgoing(type, frame.apply(item).records()));
        }
        List<CompletableFuture<R>> replies = new ArrayList<>(out.size());
        for (CompletableFuture<Frame> reply : send(out)) {
            replies.add(reply.thenApply(answer));
        }
        return replies;
    }

    private static int acceptedCommId(Frame reply) {
        if (reply.status() != Wire.OK) {
            throw new CompletionException(new RequestRefused(reply.status(), reply.text()));
        }
        try {
            return Messages.session(reply);
        } catch (ProtocolException e) {
            throw new CompletionException(new IOException("ACCEPT reply: " + e.getMessage(), e));
        }
    }

    /** Sends DREQ for one of this consumer's connections. */
    public void disconnect(int localCommId, byte[] privateData) throws IOException, RequestRefused {
        ok(Wire.DISCONNECT, Messages.disconnectFrame(0, localCommId, privateData).records());
    }

    /** The next event about this consumer's connections, or null within {@code timeout}. */
    public CmEventInfo nextEvent(Duration timeout) throws InterruptedException {
        return state.events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean isOpen() {
        return channel.isActive();
    }

    /** The ERROR the daemon sent before closing, if any. */
    public Frame error() {
        return state.error;
    }

    public Channel channel() {
        return channel;
    }

    /** Why the connection closed: the daemon's ERROR, what this end could not read, or just that it closed. */
    public String closeReason() {
        return state.closedMessage();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly(2000);
        if (ownGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3000);
        }
    }

    /** Holds everything the daemon sends, from the first byte on (an ERROR may come before connect() returns). */
    private static final class ClientHandler extends SimpleChannelInboundHandler<Object> {
        final Map<Integer, CompletableFuture<Frame>> pending = new ConcurrentHashMap<>();
        final BlockingQueue<Object> requests = new LinkedBlockingQueue<>();
        final BlockingQueue<CmEventInfo> events = new LinkedBlockingQueue<>();
        volatile Frame error;
        volatile String closedWhy;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof FrameDecoder.Violation || msg instanceof FrameDecoder.BadFrame) {
                String why = msg instanceof FrameDecoder.Violation
                        ? ((FrameDecoder.Violation) msg).error().getMessage()
                        : ((FrameDecoder.BadFrame) msg).error().getMessage();
                closedWhy = "the daemon sent something this client cannot read: " + why;
                ctx.close();
                return;
            }
            Frame f = (Frame) msg;
            if (f.type() == Wire.ERROR) {
                error = f;
                return; // the daemon closes next
            }
            if (f.isReply()) {
                CompletableFuture<Frame> p = pending.get(f.seq());
                if (p != null) {
                    p.complete(f);
                }
                return;
            }
            if (f.type() == Wire.CM_EVENT) {
                try {
                    events.add(Messages.cmEvent(f));
                } catch (ProtocolException e) {
                    closedWhy = "the daemon sent a CM_EVENT this client cannot read: " + e.getMessage();
                    ctx.close();
                }
                return;
            }
            if (f.type() == Wire.REQ) {
                try {
                    requests.add(Messages.deliveredRequest(f));
                } catch (ProtocolException e) {
                    closedWhy = "the daemon sent a REQ this client cannot read: " + e.getMessage();
                    ctx.close();
                }
            }
        }

        String closedMessage() {
            Frame e = error;
            if (e != null) {
                return "the daemon closed the connection: " + Wire.errnoName(e.status()) + ": " + e.text();
            }
            return closedWhy != null ? closedWhy : "the daemon closed the connection";
        }

        void onClosed() {
            IOException gone = new IOException(closedMessage());
            for (CompletableFuture<Frame> f : pending.values()) {
                f.completeExceptionally(gone);
            }
            requests.add(CLOSED);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            closedWhy = "control connection failed: " + cause.getMessage();
            ctx.close();
        }
    }
}
