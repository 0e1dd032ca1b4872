package io.cmdemux.control.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.IngressKey;
import io.cmdemux.ingress.resolve.NetworkType;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.netdev.HwAddr;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.OptionalInt;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** Typed messages survive the wire unchanged, and any bytes in their records fail cleanly. */
class MessagesProperties {

    @Provide
    Arbitrary<InetAddress> ipv4() {
        return Arbitraries.bytes().array(byte[].class).ofSize(4).map(MessagesProperties::addr);
    }

    @Provide
    Arbitrary<InetAddress> ipv6() {
        return Arbitraries.bytes().array(byte[].class).ofSize(16).map(b -> {
            try {
                return Inet6Address.getByAddress(null, b, null);
            } catch (UnknownHostException e) {
                throw new AssertionError(e);
            }
        });
    }

    private static InetAddress addr(byte[] b) {
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Provide
    Arbitrary<ListenSpec> specs() {
        Arbitrary<PortSpace> ps = Arbitraries.of(PortSpace.values());
        Arbitrary<Integer> port = Arbitraries.integers().between(0, 0xffff);
        Arbitrary<ListenSpec> v4 = Combinators.combine(ps, port, ipv4(), Arbitraries.of(true, false),
                Arbitraries.of(true, false))
                .as((p, n, a, set, only) -> new ListenSpec(Wire.AF_INET, p, n, a, set, only, 0));
        Arbitrary<ListenSpec> v6 = Combinators.combine(ps, port, ipv6(), Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 1 << 20))
                .as((p, n, a, only, idx) -> new ListenSpec(Wire.AF_INET6, p, n, a, true, only, idx));
        Arbitrary<ListenSpec> ib = Combinators.combine(ps, port).as(ListenSpec::afIb);
        return Arbitraries.oneOf(v4, v6, ib);
    }

    @Property
    void listenSpecsRoundTrip(@ForAll("specs") ListenSpec s) throws ProtocolException {
        assertThat(Messages.listenSpec(Messages.listenSpec(s))).isEqualTo(s);
        ListenerInfo l = new ListenerInfo(42, 4026531840L, s);
        assertThat(Messages.listener(Messages.listener(l))).isEqualTo(l);
    }

    @Property
    void arbitraryListenSpecBytesDecodeOrAreRefusedWithAnErrno(@ForAll @Size(max = 40) byte[] value) {
        try {
            Messages.listenSpec(new Record(Wire.R_LISTEN_SPEC, Wire.RECORD_MANDATORY, value));
        } catch (ProtocolException e) {
            assertThat(e.status()).isIn(Wire.EBADMSG, Wire.EINVAL, Wire.EAFNOSUPPORT);
        }
    }

    @Provide
    Arbitrary<PacketMeta> metas() {
        Arbitrary<Gid> gid = Arbitraries.longs().tuple2().map(t -> new Gid(t.get1(), t.get2())).injectNull(0.2);
        Arbitrary<IngressKey> key = Combinators.combine(Arbitraries.strings().alpha().ofMaxLength(20),
                Arbitraries.integers().between(0, 0xffff), Arbitraries.longs(),
                Arbitraries.integers().between(0, 0xffff)).as(IngressKey::new);
        Arbitrary<Integer> ipVersion = Arbitraries.of(4, 6);
        return Combinators.combine(key, Arbitraries.of(NetworkType.values()), gid, gid, gid,
                Arbitraries.integers().between(0, 0xffff),
                Arbitraries.longs(), ipVersion).flatAs((k, nt, d, o, p, pkey, sid, ipv) -> {
                    Arbitrary<InetAddress> ip = (ipv == 4 ? ipv4() : ipv6()).injectNull(0.1);
                    return Combinators.combine(ip, ip, Arbitraries.integers().between(0, 0xffff),
                            Arbitraries.integers().between(0, 4095).injectNull(0.5),
                            Arbitraries.bytes().array(byte[].class).ofSize(6).injectNull(0.3),
                            Arbitraries.of(true, false), Arbitraries.longs().between(0, 0xffffffffL),
                            Arbitraries.integers().between(0, 255))
                            .as((dst, src, sport, vlan, mac, sidr, comm, cmaVer) ->
                                    new PacketMeta(k, nt, d, o, p, pkey, pkey ^ 0x8000, sid, cmaVer, ipv,
                                    dst, src, sport, vlan == null ? OptionalInt.empty()
                                    : OptionalInt.of(vlan), mac == null ? null : HwAddr.of(mac),
                                    sidr, comm, sidr || comm % 5 == 4 ? null : QpType.values()[(int) (comm % 4)],
                                            p == null || p.equals(Gid.ZERO) ? null : p));
                });
    }

    @Property
    void packetMetaRoundTrips(@ForAll("metas") PacketMeta m) throws ProtocolException {
        assertThat(MetaCodec.decode(MetaCodec.encode(m))).isEqualTo(m);
    }

    @Property
    void deliveriesRoundTrip(@ForAll("metas") PacketMeta m, @ForAll long traceId, @ForAll @Size(max = 256) byte[] frame,
            @ForAll boolean reject) throws ProtocolException {
        DecisionSummary d = new DecisionSummary(reject ? Decision.Outcome.REJECT : Decision.Outcome.DELIVER,
                ResolverMode.KERNEL, reject ? 28 : null, 7, 4026532000L, 99);
        Frame f = Messages.requestFrame(5, traceId, 17, MetaCodec.encode(m), frame, d, "pod-a");
        Frame wire = FrameCodec.decode(FrameCodec.encode(f), Wire.MAX_REPLY_FRAME);
        DeliveredRequest r = Messages.deliveredRequest(wire);
        assertThat(r.traceId()).isEqualTo(traceId);
        assertThat(r.listenerId()).isEqualTo(17);
        assertThat(r.meta()).isEqualTo(m);
        assertThat(r.frame()).isEqualTo(frame);
        assertThat(r.decision()).isEqualTo(d);
        assertThat(r.netnsName()).isEqualTo("pod-a");
    }

    @Property
    void theOnePassRequestEncoderWritesTheSameBytesAsTheRecordByRecordOne(@ForAll("metas") PacketMeta m,
            @ForAll int seq, @ForAll long traceId,
            @ForAll long listenerId, @ForAll @Size(max = 300) byte[] frame, @ForAll("names") String name) {
        DecisionSummary d = new DecisionSummary(Decision.Outcome.DELIVER, ResolverMode.NETSTACK, null, 3,
                4026532000L, 12);
        assertThat(Messages.encodeRequest(seq, traceId, listenerId, m, frame, d, name))
                .isEqualTo(FrameCodec.encode(Messages.requestFrame(seq, traceId, listenerId, MetaCodec.encode(m),
                        frame, d, name)));
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().ofMaxLength(20).injectNull(0.1);
    }

    @Property
    void arbitraryMetaBytesFailCleanly(@ForAll @Size(max = 200) byte[] value) {
        try {
            MetaCodec.decode(value);
        } catch (ProtocolException e) {
            assertThat(e.status()).isEqualTo(Wire.EBADMSG);
        }
    }

    @Property
    void rejectionsRoundTripAndOversizedOnesAreRefused(@ForAll long traceId, @ForAll("reasons") int reason,
            @ForAll @Size(max = 100) byte[] ari, @ForAll @Size(max = 200) byte[] pd) throws ProtocolException {
        Frame f = Messages.rejectFrame(3, new Rejection(traceId, reason, ari, pd));
        try {
            Rejection r = Messages.rejection(FrameCodec.decode(FrameCodec.encode(f), Wire.MAX_REQUEST_FRAME));
            assertThat(ari.length).isLessThanOrEqualTo(Wire.MAX_ARI);
            assertThat(pd.length).isLessThanOrEqualTo(Wire.MAX_REJECT_PRIVATE_DATA);
            assertThat(r.traceId()).isEqualTo(traceId);
            assertThat(r.reason()).isEqualTo(reason);
            assertThat(r.ari()).isEqualTo(ari);
            assertThat(r.privateData()).isEqualTo(pd);
        } catch (ProtocolException e) {
            assertThat(e.status()).isEqualTo(Wire.EMSGSIZE);
            assertThat(ari.length > Wire.MAX_ARI || pd.length > Wire.MAX_REJECT_PRIVATE_DATA).isTrue();
        }
    }

    @Provide
    Arbitrary<Integer> reasons() {
        return Arbitraries.integers().between(0, 0xffff);
    }
}
