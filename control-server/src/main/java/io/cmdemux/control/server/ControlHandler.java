package io.cmdemux.control.server;

import io.cmdemux.control.protocol.Acceptance;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameDecoder;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.ListenerInfo;
import io.cmdemux.control.protocol.Messages;
import io.cmdemux.control.protocol.ProtocolException;
import io.cmdemux.control.protocol.QueryArgs;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.ReadGate;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Rejection;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.dataplane.consumer.Refusal;
import io.cmdemux.control.protocol.Via;
import io.cmdemux.control.protocol.Wire;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.dataplane.consumer.Consumers;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's end of one connection: answers HELLO, LISTEN, UNLISTEN, QUERY, REJECT and the pod
 * messages (POD_REGISTER, POD_UNREGISTER, CNI) for a consumer whose namespace is fixed when the
 * connection is accepted. Nothing in a message can change that namespace; LISTEN has no field for
 * one, and a namespace a pod message names is checked against the kernel by the daemon.
 */
final class ControlHandler extends SimpleChannelInboundHandler<Object> {
    private static final Logger log = LoggerFactory.getLogger(ControlHandler.class);
    private static final int MAX_CLIENT_NAME = 64;

    /** What every connection's handler shares. */
    record Context(Connections connections, ListenerRegistry registry, QueryRunner queries, PodRequests pods,
            Supplier<TopologySnapshot> topology, Supplier<Consumers.RejectHandler> rejects,
            Supplier<Consumers.AcceptHandler> accepts,
            Supplier<Consumers.DisconnectHandler> disconnects, NamespaceNames names, ControlCounters counters,
            LogBudget logBudget) {}

    private final Context daemon;
    private final Via via;
    private final NetnsId acceptedIn;
    /** The handler that took an ACCEPT in this read, told when the read ends (its REPs leave together). */
    private Consumers.AcceptHandler acceptsInRead;
    private Consumers.RejectHandler rejectsInRead;
    private Connection conn;

    /** @param acceptedIn the namespace whose @cmdemux socket accepted us, or null for the host socket */
    ControlHandler(Context context, Via via, NetnsId acceptedIn) {
        this.daemon = context;
        this.via = via;
        this.acceptedIn = acceptedIn;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        conn = daemon.connections().accepted(ctx.channel(), via, acceptedIn);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (conn != null) {
            daemon.connections().closed(conn);
        }
        ctx.fireChannelInactive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
        if (conn == null || conn.netns() == null) {
            return; // refused at accept, or not identified yet (reads are off until then)
        }
        if (msg instanceof FrameDecoder.Violation) {
            FrameDecoder.Violation v = (FrameDecoder.Violation) msg;
            daemon.counters().inc("closed." + v.counter());
            log.debug("{}: closing: {}", conn, v.error().getMessage());
            Farewell.send(ctx.channel(), v.error().status(), v.error().getMessage());
            return;
        }
        if (msg instanceof FrameDecoder.BadFrame) {
            FrameDecoder.BadFrame b = (FrameDecoder.BadFrame) msg;
            refuse(ctx, b.type(), b.seq(), b.error().status(), b.error().getMessage());
            return;
        }
        Frame f = (Frame) msg;
        if (f.isReply()) {
            daemon.counters().inc("ignored.reply");
            return;
        }
        try {
            switch (f.type()) {
                case Wire.HELLO:
                    hello(ctx, f);
                    break;
                case Wire.LISTEN:
                    listen(ctx, f);
                    break;
                case Wire.UNLISTEN:
                    unlisten(ctx, f);
                    break;
                case Wire.QUERY:
                    query(ctx, f);
                    break;
                case Wire.REJECT:
                    reject(ctx, f);
                    break;
                case Wire.ACCEPT:
                    accept(ctx, f);
                    break;
                case Wire.DISCONNECT:
                    disconnect(ctx, f);
                    break;
                case Wire.POD_REGISTER:
                case Wire.POD_UNREGISTER:
                case Wire.CNI:
                case Wire.CLI:
                    daemon.pods().run(conn, f);
                    break;
                case Wire.REQ:
                case Wire.CM_EVENT:
                case Wire.ERROR:
                    refuse(ctx, f.type(), f.seq(), Wire.EOPNOTSUPP, "only the daemon sends " + Wire.typeName(f.type()));
                    break;
                default:
                    refuse(ctx, f.type(), f.seq(), Wire.EOPNOTSUPP, "unknown message type " + f.type());
            }
        } catch (ProtocolException e) {
            refuse(ctx, f.type(), f.seq(), e.status(), e.getMessage());
        } catch (RequestRefused e) {
            refuse(ctx, f.type(), f.seq(), e.status(), e.getMessage());
        }
    }

    private void hello(ChannelHandlerContext ctx, Frame f) throws ProtocolException {
        Messages.requireKnown(f, Set.of(Wire.R_CLIENT_NAME));
        f.first(Wire.R_CLIENT_NAME).ifPresent(r -> conn.clientName(printable(r.text())));
        String name = daemon.names().of(conn.netns());
        ok(ctx, f, List.of(Messages.consumer(conn.info(name)), Record.text(Wire.R_NETNS_NAME, name)));
    }

    private void listen(ChannelHandlerContext ctx, Frame f) throws ProtocolException, RequestRefused {
        Messages.requireKnown(f, Set.of(Wire.R_LISTEN_SPEC));
        ListenSpec spec = Messages.listenSpec(Messages.required(f, Wire.R_LISTEN_SPEC, "LISTEN_SPEC"));
        TopologySnapshot snap = daemon.topology().get();
        NetnsState state = snap == null ? null : snap.namespace(conn.netns());
        Listener l = daemon.registry().listen(conn.id, conn.netns(), state, spec,
                daemon.connections()::hasHungUp);
        ListenSpec effective = new ListenSpec(spec.family(), l.portSpace(), l.port(), l.address(), true, l.afonly(),
                l.boundIfindex());
        daemon.counters().inc("listen.ok");
        daemon.logBudget().info(log, conn.netns(), "{}: LISTEN {} in {} as listener {}", conn, BindRules.describe(l),
                daemon.names().of(conn.netns()), l.bindOrder());
        ok(ctx, f, List.of(Messages.listener(new ListenerInfo(l.bindOrder(), l.netns().inode(), effective))));
    }

    private void unlisten(ChannelHandlerContext ctx, Frame f) throws ProtocolException, RequestRefused {
        Messages.requireKnown(f, Set.of(Wire.R_LISTENER_ID));
        long id = Messages.listenerId(Messages.required(f, Wire.R_LISTENER_ID, "LISTENER_ID"));
        Listener gone = daemon.registry().unlisten(conn.id, id);
        daemon.logBudget().info(log, conn.netns(), "{}: UNLISTEN {} (listener {})", conn,
                gone == null ? "?" : BindRules.describe(gone), id);
        ok(ctx, f, List.of());
    }

    private void query(ChannelHandlerContext ctx, Frame f) throws ProtocolException, RequestRefused {
        Messages.requireKnown(f, Set.of(Wire.R_QUERY, Wire.R_JSON));
        int code = Messages.queryKind(Messages.required(f, Wire.R_QUERY, "QUERY"));
        QueryKind kind = QueryKind.ofCode(code);
        if (kind == null) {
            throw new RequestRefused(Wire.EOPNOTSUPP, "unknown query kind " + code
                    + " (1 topology, 2 explain, 3 gids, 4 listeners, 5 pods)");
        }
        ObjectNode args = QueryArgs.parse(f.first(Wire.R_JSON).map(Record::value).orElse(null));
        daemon.queries().run(conn, kind, args, f);
    }

    private void reject(ChannelHandlerContext ctx, Frame f) throws ProtocolException, RequestRefused {
        Rejection r = Messages.rejection(f);
        Consumers.RejectHandler sink = daemon.rejects().get();
        if (sink == null) {
            throw new RequestRefused(Wire.EOPNOTSUPP, "this daemon sends no REJs (no reject handler is installed)");
        }
        Long listenerId = conn.answer(r.traceId());
        if (listenerId == null) {
            daemon.counters().inc("reject.unknown-trace");
            throw new RequestRefused(Wire.ENOENT, "trace " + Long.toUnsignedString(r.traceId())
                    + " was not delivered to you, or was already answered");
        }
        rejectsInRead = sink;
        try {
            sink.reject(r.traceId(), r.reason(), r.ari(), r.privateData());
        } catch (RuntimeException e) {
            daemon.counters().inc("reject.handler-failed");
            log.warn("{}: the reject handler failed for trace {}: {}", conn, r.traceId(), e.toString());
            throw new RequestRefused(Wire.EIO, "the daemon could not send the REJ: " + e.getMessage());
        }
        daemon.counters().inc("reject.ok");
        log.debug("{}: REJECT trace {} reason {}", conn, r.traceId(), r.reason());
        ok(ctx, f, List.of());
    }

    /** ACCEPT: only the consumer a request was delivered to may answer it, and only once. */
    private void accept(ChannelHandlerContext ctx, Frame f) throws ProtocolException, RequestRefused {
        Acceptance a = Messages.acceptance(f);
        Consumers.AcceptHandler sink = daemon.accepts().get();
        if (sink == null) {
            throw new RequestRefused(Wire.EOPNOTSUPP, "this daemon does not accept connections for consumers");
        }
        if (conn.answer(a.traceId()) == null) {
            daemon.counters().inc("accept.unknown-trace");
            throw new RequestRefused(Wire.ENOENT, "trace " + Long.toUnsignedString(a.traceId())
                    + " was not delivered to you, or was already answered");
        }
        acceptsInRead = sink;
        int localCommId;
        try {
            localCommId = sink.accept(ListenerRegistry.owner(conn.id), ConsumerPort.toDataplane(a));
        } catch (Refusal r) {
            throw ConsumerPort.toWire(r);
        }
        daemon.counters().inc("accept.ok");
        ok(ctx, f, List.of(Messages.session(localCommId)));
    }

    private void disconnect(ChannelHandlerContext ctx, Frame f) throws ProtocolException, RequestRefused {
        byte[] pd = Messages.disconnectPrivateData(f);
        int localCommId = Messages.session(f);
        Consumers.DisconnectHandler sink = daemon.disconnects().get();
        if (sink == null) {
            throw new RequestRefused(Wire.EOPNOTSUPP, "this daemon keeps no connections for consumers");
        }
        try {
            sink.disconnect(ListenerRegistry.owner(conn.id), localCommId, pd);
        } catch (Refusal r) {
            throw ConsumerPort.toWire(r);
        }
        daemon.counters().inc("disconnect.ok");
        ok(ctx, f, List.of());
    }

    /**
     * Replies are written as each request is handled and flushed once per read: a consumer that
     * pipelines its ACCEPTs gets all their replies in one write(2), not one each.
     */
    private void ok(ChannelHandlerContext ctx, Frame request, List<Record> records) {
        ctx.write(Frame.reply(request, Wire.OK, records));
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (acceptsInRead != null) {
            Consumers.AcceptHandler sink = acceptsInRead;
            acceptsInRead = null;
            sink.acceptsRead();
        }
        if (rejectsInRead != null) {
            Consumers.RejectHandler sink = rejectsInRead;
            rejectsInRead = null;
            sink.rejectsRead();
        }
        ctx.flush();
        ctx.fireChannelReadComplete();
    }

    private void refuse(ChannelHandlerContext ctx, int type, int seq, int status, String text) {
        daemon.counters().inc("refused." + Wire.errnoName(status));
        log.debug("{}: {} refused: {} {}", conn, Wire.typeName(type), Wire.errnoName(status), text);
        ctx.write(new Frame(Wire.VERSION, type, status, Wire.FORMAT_RECORDS, Wire.FLAG_REPLY, seq,
                List.of(Record.text(Wire.R_TEXT, text))));
    }

    /** Back-pressure: a client that does not read its replies stops being read from. */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        ReadGate gate = ReadGate.of(ctx.channel());
        if (ctx.channel().isWritable()) {
            gate.release(ReadGate.Reason.UNWRITABLE);
        } else {
            gate.hold(ReadGate.Reason.UNWRITABLE);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        daemon.counters().inc("closed.io-error");
        log.debug("{}: closing after an error: {}", conn, cause.toString());
        ctx.close();
    }

    /** A client's self-chosen name goes into logs: keep it short and printable. */
    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < MAX_CLIENT_NAME; i++) {
            char c = s.charAt(i);
            sb.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return sb.toString();
    }
}
