package io.cmdemux.control.protocol;

import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.namespaces.NetnsId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Typed messages ⇄ records. Every decoder checks exact record lengths and value ranges and fails
 * with a {@link ProtocolException} that names the record; nothing here trusts a length or a count
 * from the wire beyond the bytes actually present.
 */
public final class Messages {
    static final int LISTEN_SPEC_SIZE = 28;
    static final int LISTENER_SIZE = 16 + LISTEN_SPEC_SIZE;
    static final int DELIVERY_SIZE = 16;
    static final int DECISION_SIZE = 24;
    static final int REJECT_SIZE = 12;
    static final int ACCEPT_SIZE = 24;
    static final int SESSION_SIZE = 4;
    static final int CM_EVENT_SIZE = 16;
    static final int CONSUMER_SIZE = 32;
    static final int MAX_NAME = 256;
    private static final int NO_REASON = 0xffff;

    private Messages() {}

    // ---- LISTEN ----

    /**
     * LISTEN_SPEC, 28 bytes: u8 family, u8 flags, u16 port space (rdma_ucm_port_space), u16 port,
     * u16 reserved, u32 bound ifindex, 16-byte address (IPv4 in bytes 0-3, the rest zero; all zero for AF_IB).
     */
    public static Record listenSpec(ListenSpec s) {
        return Record.mandatory(Wire.R_LISTEN_SPEC, specBytes(s));
    }

    private static byte[] specBytes(ListenSpec s) {
        ByteBuffer b = ByteBuffer.allocate(LISTEN_SPEC_SIZE);
        b.put((byte) s.family());
        b.put((byte) ((s.afonlySet() ? Wire.LISTEN_AFONLY_SET : 0) | (s.afonly() ? Wire.LISTEN_AFONLY : 0)));
        b.putShort((short) s.portSpace().code());
        b.putShort((short) s.port());
        b.putShort((short) 0);
        b.putInt(s.boundIfindex());
        byte[] addr = new byte[16];
        if (s.address() != null) {
            byte[] raw = s.address().getAddress();
            System.arraycopy(raw, 0, addr, 0, raw.length);
        }
        b.put(addr);
        return b.array();
    }

    public static ListenSpec listenSpec(Record r) throws ProtocolException {
        expect(r, Wire.R_LISTEN_SPEC, LISTEN_SPEC_SIZE, "LISTEN_SPEC");
        return specFrom(r.buffer());
    }

    private static ListenSpec specFrom(ByteBuffer b) throws ProtocolException {
        int family = b.get() & 0xff;
        int flags = b.get() & 0xff;
        int psValue = b.getShort() & 0xffff;
        int port = b.getShort() & 0xffff;
        b.getShort();
        int ifindex = b.getInt();
        byte[] addr = new byte[16];
        b.get(addr);
        PortSpace ps = PortSpace.ofServiceId(((long) psValue) << 16).orElse(null);
        if (ps == null) {
            throw new ProtocolException(Wire.EINVAL, "unknown port space 0x" + Integer.toHexString(psValue)
                    + " (tcp 0x0106, udp 0x0111, ipoib 0x0002, ib 0x013f)");
        }
        if (ifindex < 0) {
            throw new ProtocolException(Wire.EINVAL, "bound ifindex " + Integer.toUnsignedString(ifindex)
                    + " is out of range");
        }
        boolean afonlySet = (flags & Wire.LISTEN_AFONLY_SET) != 0;
        boolean afonly = (flags & Wire.LISTEN_AFONLY) != 0;
        InetAddress address;
        try {
            switch (family) {
                case Wire.AF_INET:
                    for (int i = 4; i < 16; i++) {
                        if (addr[i] != 0) {
                            throw new ProtocolException(Wire.EINVAL, "an AF_INET address must leave bytes 4-15 zero");
                        }
                    }
                    address = InetAddress.getByAddress(Arrays.copyOf(addr, 4));
                    break;
                case Wire.AF_INET6:
                    address = Inet6Address.getByAddress(null, addr, null);
                    break;
                case Wire.AF_IB:
                    for (byte x : addr) {
                        if (x != 0) {
                            throw new ProtocolException(Wire.EINVAL, "only the AF_IB wildcard can be listened on;"
                                    + " the address must be zero");
                        }
                    }
                    address = null;
                    break;
                default:
                    throw new ProtocolException(Wire.EAFNOSUPPORT,
                            "address family " + family + " (AF_INET 2, AF_INET6 10, AF_IB 27)");
            }
        } catch (UnknownHostException e) {
            throw new ProtocolException(Wire.EINVAL, "bad address: " + e.getMessage());
        }
        return new ListenSpec(family, ps, port, address, afonlySet, afonly, ifindex);
    }

    /** LISTENER, 44 bytes: u64 listener id, u64 netns inode, then the effective LISTEN_SPEC. */
    public static Record listener(ListenerInfo l) {
        ByteBuffer b = ByteBuffer.allocate(LISTENER_SIZE);
        b.putLong(l.listenerId());
        b.putLong(l.netnsInode());
        b.put(specBytes(l.spec()));
        return Record.mandatory(Wire.R_LISTENER, b.array());
    }

    public static ListenerInfo listener(Record r) throws ProtocolException {
        expect(r, Wire.R_LISTENER, LISTENER_SIZE, "LISTENER");
        ByteBuffer b = r.buffer();
        long id = b.getLong();
        long inode = b.getLong();
        return new ListenerInfo(id, inode, specFrom(b));
    }

    public static Record listenerId(long id) {
        return Record.mandatory(Wire.R_LISTENER_ID, ByteBuffer.allocate(8).putLong(id).array());
    }

    public static long listenerId(Record r) throws ProtocolException {
        expect(r, Wire.R_LISTENER_ID, 8, "LISTENER_ID");
        return r.buffer().getLong();
    }

    // ---- QUERY ----

    public static Record query(QueryKind kind) {
        return Record.mandatory(Wire.R_QUERY, ByteBuffer.allocate(2).putShort((short) kind.code()).array());
    }

    /** The raw kind code; {@link QueryKind#ofCode} is null for codes this version does not know. */
    public static int queryKind(Record r) throws ProtocolException {
        expect(r, Wire.R_QUERY, 2, "QUERY");
        return r.buffer().getShort() & 0xffff;
    }

    // ---- REQ delivery ----

    /** DELIVERY, 16 bytes: u64 trace id, u64 listener id. */
    public static Record delivery(long traceId, long listenerId) {
        return Record.mandatory(Wire.R_DELIVERY, ByteBuffer.allocate(DELIVERY_SIZE).putLong(traceId)
                .putLong(listenerId).array());
    }

    /**
     * DECISION, 24 bytes: u8 outcome (0 deliver, 1 reject, 2 drop), u8 mode (0 kernel, 1 netstack),
     * u16 reject reason (0xffff: none), u32 netdev ifindex, u64 netns inode, u64 topology generation.
     */
    public static Record decision(DecisionSummary d) {
        byte[] v = new byte[DECISION_SIZE];
        writeDecision(Unpooled.wrappedBuffer(v).clear(), d);
        return Record.mandatory(Wire.R_DECISION, v);
    }

    private static void writeDecision(ByteBuf b, DecisionSummary d) {
        b.writeByte(d.outcome().ordinal());
        b.writeByte(d.mode() == null ? 0 : d.mode().ordinal());
        b.writeShort(d.rejectReason() == null ? NO_REASON : d.rejectReason());
        b.writeInt(d.ifindex());
        b.writeLong(d.netnsInode());
        b.writeLong(d.topologyGeneration());
    }

    public static DecisionSummary decision(Record r) throws ProtocolException {
        expect(r, Wire.R_DECISION, DECISION_SIZE, "DECISION");
        ByteBuffer b = r.buffer();
        int outcome = b.get() & 0xff;
        int mode = b.get() & 0xff;
        int reason = b.getShort() & 0xffff;
        if (outcome >= Decision.Outcome.values().length || mode >= ResolverMode.values().length) {
            throw new ProtocolException(Wire.EBADMSG, "DECISION with outcome " + outcome + ", mode " + mode);
        }
        return new DecisionSummary(Decision.Outcome.values()[outcome], ResolverMode.values()[mode],
                reason == NO_REASON ? null : reason, b.getInt(), b.getLong(), b.getLong());
    }

    /** The REQ frame the daemon sends a consumer. */
    public static Frame requestFrame(int seq, long traceId, long listenerId, byte[] meta, byte[] frame,
            DecisionSummary decision, String netnsName) {
        List<Record> rs = new ArrayList<>(5);
        rs.add(delivery(traceId, listenerId));
        rs.add(Record.mandatory(Wire.R_META, meta));
        rs.add(Record.mandatory(Wire.R_FRAME, frame));
        rs.add(decision(decision));
        if (netnsName != null && !netnsName.isEmpty()) {
            rs.add(Record.text(Wire.R_NETNS_NAME, netnsName));
        }
        return Frame.of(Wire.REQ, seq, rs);
    }

    /**
     * The same bytes as {@code FrameCodec.encode(requestFrame(..., MetaCodec.encode(meta), ...))}, in
     * a new array; {@link #writeRequest} is the one pass that makes them.
     */
    public static byte[] encodeRequest(int seq, long traceId, long listenerId, PacketMeta meta, byte[] frame,
            DecisionSummary decision, String netnsName) {
        byte[] out = new byte[requestLength(meta, frame, netnsName)];
        writeRequest(Unpooled.wrappedBuffer(out).clear(), seq, traceId, listenerId, meta, frame, decision, netnsName);
        return out;
    }

    /** The length of the REQ frame {@link #writeRequest} writes. */
    public static int requestLength(PacketMeta meta, byte[] frame, String netnsName) {
        int r = Wire.RECORD_HEADER_SIZE;
        int name = netnsName == null ? 0 : ByteBufUtil.utf8Bytes(netnsName);
        long total = Wire.HEADER_SIZE + (r + DELIVERY_SIZE) + (r + (long) MetaCodec.encodedLength(meta))
                + (r + (long) frame.length) + (r + DECISION_SIZE) + (name > 0 ? r + name : 0);
        if (total > Wire.MAX_REPLY_FRAME) {
            throw new IllegalArgumentException("a REQ of " + total + " bytes exceeds the frame limit");
        }
        return (int) total;
    }

    /**
     * Writes the REQ frame for one delivery at {@code out}'s writer index, header, records and META
     * alike, with no intermediate array: this runs once per delivered request, and {@code out} is
     * the buffer the event loop hands to the socket.
     */
    public static void writeRequest(ByteBuf out, int seq, long traceId, long listenerId, PacketMeta meta, byte[] frame,
            DecisionSummary decision, String netnsName) {
        int total = requestLength(meta, frame, netnsName);
        out.writeByte(Wire.VERSION).writeByte(Wire.REQ).writeShort(Wire.OK).writeShort(Wire.FORMAT_RECORDS)
                .writeShort(0).writeInt(total).writeInt(seq);
        recordHeader(out, Wire.R_DELIVERY, Wire.RECORD_MANDATORY, DELIVERY_SIZE).writeLong(traceId)
                .writeLong(listenerId);
        recordHeader(out, Wire.R_META, Wire.RECORD_MANDATORY, MetaCodec.encodedLength(meta));
        MetaCodec.write(out, meta);
        recordHeader(out, Wire.R_FRAME, Wire.RECORD_MANDATORY, frame.length).writeBytes(frame);
        writeDecision(recordHeader(out, Wire.R_DECISION, Wire.RECORD_MANDATORY, DECISION_SIZE), decision);
        int name = netnsName == null ? 0 : ByteBufUtil.utf8Bytes(netnsName);
        if (name > 0) {
            recordHeader(out, Wire.R_NETNS_NAME, 0, name);
            ByteBufUtil.reserveAndWriteUtf8(out, netnsName, name);
        }
    }

    private static ByteBuf recordHeader(ByteBuf b, int type, int flags, int valueLength) {
        return b.writeShort(type).writeShort(flags).writeInt(Wire.RECORD_HEADER_SIZE + valueLength);
    }

    public static DeliveredRequest deliveredRequest(Frame f) throws ProtocolException {
        requireKnown(f, Set.of(Wire.R_DELIVERY, Wire.R_META, Wire.R_FRAME, Wire.R_DECISION, Wire.R_NETNS_NAME));
        Record d = required(f, Wire.R_DELIVERY, "DELIVERY");
        expect(d, Wire.R_DELIVERY, DELIVERY_SIZE, "DELIVERY");
        ByteBuffer b = d.buffer();
        long traceId = b.getLong();
        long listenerId = b.getLong();
        return new DeliveredRequest(traceId, listenerId,
                MetaCodec.decode(required(f, Wire.R_META, "META").value()),
                required(f, Wire.R_FRAME, "FRAME").value(),
                decision(required(f, Wire.R_DECISION, "DECISION")),
                f.first(Wire.R_NETNS_NAME).map(Record::text).orElse(""));
    }

    // ---- REJECT ----

    /** REJECT, 12 bytes: u64 trace id, u16 reason, u16 reserved; then optional ARI and PRIVATE_DATA records. */
    public static Frame rejectFrame(int seq, Rejection r) {
        List<Record> rs = new ArrayList<>(3);
        rs.add(Record.mandatory(Wire.R_REJECT, ByteBuffer.allocate(REJECT_SIZE).putLong(r.traceId())
                .putShort((short) r.reason()).putShort((short) 0).array()));
        if (r.ari().length > 0) {
            rs.add(Record.mandatory(Wire.R_ARI, r.ari()));
        }
        if (r.privateData().length > 0) {
            rs.add(Record.mandatory(Wire.R_PRIVATE_DATA, r.privateData()));
        }
        return Frame.of(Wire.REJECT, seq, rs);
    }

    public static Rejection rejection(Frame f) throws ProtocolException {
        requireKnown(f, Set.of(Wire.R_REJECT, Wire.R_ARI, Wire.R_PRIVATE_DATA));
        Record r = required(f, Wire.R_REJECT, "REJECT");
        expect(r, Wire.R_REJECT, REJECT_SIZE, "REJECT");
        ByteBuffer b = r.buffer();
        long traceId = b.getLong();
        int reason = b.getShort() & 0xffff;
        byte[] ari = f.first(Wire.R_ARI).map(Record::value).orElse(new byte[0]);
        byte[] pd = f.first(Wire.R_PRIVATE_DATA).map(Record::value).orElse(new byte[0]);
        if (ari.length > Wire.MAX_ARI) {
            throw new ProtocolException(Wire.EMSGSIZE, "ARI of " + ari.length + " bytes; a CM REJ carries at most "
                    + Wire.MAX_ARI);
        }
        if (pd.length > Wire.MAX_REJECT_PRIVATE_DATA) {
            throw new ProtocolException(Wire.EMSGSIZE, "private data of " + pd.length
                    + " bytes; a CM REJ carries at most " + Wire.MAX_REJECT_PRIVATE_DATA);
        }
        return new Rejection(traceId, reason, ari, pd);
    }

    // ---- ACCEPT, DISCONNECT, CM_EVENT (connections after the REQ) ----

    /**
     * ACCEPT, 24 bytes: u64 trace id, u32 QPN, u32 starting PSN, u8 responder resources, u8 initiator
     * depth, u8 RNR retry count, u8 flags (0x1 SRQ, 0x2 flow control), u32 reserved; then an
     * optional PRIVATE_DATA record (at most 196 bytes, a REP's).
     */
    public static Frame acceptFrame(int seq, Acceptance a) {
        List<Record> rs = new ArrayList<>(2);
        ByteBuffer b = ByteBuffer.allocate(ACCEPT_SIZE).putLong(a.traceId()).putInt(a.qpn()).putInt(a.startingPsn())
                .put((byte) a.responderResources()).put((byte) a.initiatorDepth()).put((byte) a.rnrRetryCount())
                .put((byte) ((a.srq() ? 1 : 0) | (a.flowControl() ? 2 : 0))).putInt(0);
        rs.add(Record.mandatory(Wire.R_ACCEPT, b.array()));
        if (a.privateData().length > 0) {
            rs.add(Record.mandatory(Wire.R_PRIVATE_DATA, a.privateData()));
        }
        return Frame.of(Wire.ACCEPT, seq, rs);
    }

    public static Acceptance acceptance(Frame f) throws ProtocolException {
        requireKnown(f, Set.of(Wire.R_ACCEPT, Wire.R_PRIVATE_DATA));
        Record r = required(f, Wire.R_ACCEPT, "ACCEPT");
        expect(r, Wire.R_ACCEPT, ACCEPT_SIZE, "ACCEPT");
        ByteBuffer b = r.buffer();
        long traceId = b.getLong();
        int qpn = b.getInt();
        int psn = b.getInt();
        int rr = b.get() & 0xff;
        int id = b.get() & 0xff;
        int rnr = b.get() & 0xff;
        int flags = b.get() & 0xff;
        if ((qpn & ~0xffffff) != 0 || (psn & ~0xffffff) != 0 || rnr > 7) {
            throw new ProtocolException(Wire.EINVAL, "ACCEPT: QPN and PSN are 24 bits and the RNR retry count 3");
        }
        byte[] pd = f.first(Wire.R_PRIVATE_DATA).map(Record::value).orElse(new byte[0]);
        if (pd.length > Wire.MAX_REP_PRIVATE_DATA) {
            throw new ProtocolException(Wire.EMSGSIZE, "private data of " + pd.length
                    + " bytes; a CM REP carries at most " + Wire.MAX_REP_PRIVATE_DATA);
        }
        return new Acceptance(traceId, qpn, psn, rr, id, rnr, (flags & 1) != 0, (flags & 2) != 0, pd);
    }

    /** SESSION, 4 bytes: the daemon's u32 local comm ID of a connection. */
    public static Record session(int localCommId) {
        return Record.mandatory(Wire.R_SESSION, ByteBuffer.allocate(SESSION_SIZE).putInt(localCommId).array());
    }

    public static int session(Frame f) throws ProtocolException {
        Record r = required(f, Wire.R_SESSION, "SESSION");
        expect(r, Wire.R_SESSION, SESSION_SIZE, "SESSION");
        return r.buffer().getInt();
    }

    public static Frame disconnectFrame(int seq, int localCommId, byte[] privateData) {
        List<Record> rs = new ArrayList<>(2);
        rs.add(session(localCommId));
        if (privateData.length > 0) {
            rs.add(Record.mandatory(Wire.R_PRIVATE_DATA, privateData));
        }
        return Frame.of(Wire.DISCONNECT, seq, rs);
    }

    public static byte[] disconnectPrivateData(Frame f) throws ProtocolException {
        requireKnown(f, Set.of(Wire.R_SESSION, Wire.R_PRIVATE_DATA));
        byte[] pd = f.first(Wire.R_PRIVATE_DATA).map(Record::value).orElse(new byte[0]);
        if (pd.length > Wire.MAX_DREQ_PRIVATE_DATA) {
            throw new ProtocolException(Wire.EMSGSIZE, "private data of " + pd.length
                    + " bytes; a CM DREQ carries at most " + Wire.MAX_DREQ_PRIVATE_DATA);
        }
        return pd;
    }

    /** CM_EVENT, 16 bytes: u64 trace id, u32 local comm ID, u8 event, u8 reserved, u16 reason. */
    public static Frame cmEventFrame(int seq, CmEventInfo e) {
        ByteBuffer b = ByteBuffer.allocate(CM_EVENT_SIZE).putLong(e.traceId()).putInt(e.localCommId())
                .put((byte) e.event()).put((byte) 0)
                .putShort((short) e.reason());
        return Frame.of(Wire.CM_EVENT, seq, List.of(Record.mandatory(Wire.R_CM_EVENT, b.array())));
    }

    public static CmEventInfo cmEvent(Frame f) throws ProtocolException {
        requireKnown(f, Set.of(Wire.R_CM_EVENT));
        Record r = required(f, Wire.R_CM_EVENT, "CM_EVENT");
        expect(r, Wire.R_CM_EVENT, CM_EVENT_SIZE, "CM_EVENT");
        ByteBuffer b = r.buffer();
        long traceId = b.getLong();
        int comm = b.getInt();
        int event = b.get() & 0xff;
        b.get();
        int reason = b.getShort() & 0xffff;
        return new CmEventInfo(traceId, comm, event, reason);
    }

    // ---- HELLO ----

    /** CONSUMER, 32 bytes: u64 consumer id, u64 netns st_dev, u64 netns inode, u8 via, u8 + u16 reserved, u32 pid. */
    public static Record consumer(ConsumerInfo c) {
        ByteBuffer b = ByteBuffer.allocate(CONSUMER_SIZE);
        b.putLong(c.consumerId());
        b.putLong(c.netns().dev());
        b.putLong(c.netns().inode());
        b.put((byte) c.via().code());
        b.put((byte) 0);
        b.putShort((short) 0);
        b.putInt(c.pid());
        return Record.mandatory(Wire.R_CONSUMER, b.array());
    }

    public static ConsumerInfo consumer(Frame f) throws ProtocolException {
        Record r = required(f, Wire.R_CONSUMER, "CONSUMER");
        expect(r, Wire.R_CONSUMER, CONSUMER_SIZE, "CONSUMER");
        ByteBuffer b = r.buffer();
        long id = b.getLong();
        NetnsId ns = new NetnsId(b.getLong(), b.getLong());
        int via = b.get() & 0xff;
        b.get();
        b.getShort();
        int pid = b.getInt();
        Via v;
        try {
            v = Via.ofCode(via);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException(Wire.EBADMSG, "CONSUMER with via " + via);
        }
        return new ConsumerInfo(id, ns, v, pid, f.first(Wire.R_NETNS_NAME).map(Record::text).orElse(""), "");
    }

    // ---- helpers ----

    /** Refuses a message that carries a mandatory record this version does not know. */
    public static void requireKnown(Frame f, Set<Integer> known) throws ProtocolException {
        for (Record r : f.records()) {
            if (r.mandatory() && !known.contains(r.type()) && r.type() != Wire.R_TEXT) {
                throw new ProtocolException(Wire.EOPNOTSUPP, "mandatory record type " + r.type()
                        + " is not understood in " + Wire.typeName(f.type()));
            }
        }
    }

    public static Record required(Frame f, int type, String name) throws ProtocolException {
        int n = 0;
        Record found = null;
        for (Record r : f.records()) {
            if (r.type() == type) {
                n++;
                found = r;
            }
        }
        if (n == 0) {
            throw new ProtocolException(Wire.EINVAL, Wire.typeName(f.type()) + " needs a " + name + " record");
        }
        if (n > 1) {
            throw new ProtocolException(Wire.EINVAL, Wire.typeName(f.type()) + " carries " + n + " " + name
                    + " records; one is allowed");
        }
        return found;
    }

    private static void expect(Record r, int type, int size, String name) throws ProtocolException {
        if (r.type() != type) {
            throw new ProtocolException(Wire.EINVAL, "expected a " + name + " record, got type " + r.type());
        }
        if (r.length() != size) {
            throw new ProtocolException(Wire.EBADMSG, name + " record of " + r.length() + " bytes (expected "
                    + size + ")");
        }
    }
}
