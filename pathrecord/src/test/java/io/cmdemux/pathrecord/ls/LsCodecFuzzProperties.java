package io.cmdemux.pathrecord.ls;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.pathrecord.PathRecord;
import io.cmdemux.pathrecord.PathRecordData;
import io.cmdemux.pathrecord.testkit.LsGolden;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** jqwik: the codec takes anything without failing other than by MalformedException, and round-trips what it writes. */
class LsCodecFuzzProperties {

    @Property(tries = 3000)
    void anyPayloadBehindAnLsHeaderDecodesOrIsMalformed(
            @ForAll @IntRange(min = 0, max = 3) int op,
            @ForAll boolean request,
            @ForAll @Size(max = 300) byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(16 + payload.length).order(ByteOrder.nativeOrder());
        b.putInt(16 + payload.length)
                .putShort((short) Ls.type(Ls.RDMA_NL_LS, op))
                .putShort((short) (request ? 1 : 0))
                .putInt(5)
                .putInt(0);
        b.put(payload);
        decodeOrMalformed(b.array());
    }

    @Property(tries = 3000)
    void flippingAndCuttingGoldenRequestsNeverEscapesMalformedException(
            @ForAll("goldens") byte[] golden,
            @ForAll @IntRange(min = 0, max = 10_000) int where,
            @ForAll byte value,
            @ForAll @IntRange(min = 0, max = 400) int cut) {
        byte[] b = golden.clone();
        if (b.length > 16) {
            b[16 + where % (b.length - 16)] = value; // keep the nlmsghdr, corrupt the rest
        }
        int n = Math.max(16, Math.min(b.length, b.length - cut % 64));
        byte[] c = Arrays.copyOf(b, n);
        ByteBuffer.wrap(c).order(ByteOrder.nativeOrder()).putInt(0, n);
        decodeOrMalformed(c);
    }

    @Provide
    Arbitrary<byte[]> goldens() {
        List<byte[]> all = new ArrayList<>();
        LsGolden.all().forEach(g -> all.add(g.bytes()));
        return Arbitraries.of(all);
    }

    private static void decodeOrMalformed(byte[] bytes) {
        NlMessage m;
        try {
            m = NlMessage.of(bytes);
        } catch (MalformedException e) {
            return;
        }
        try {
            LsCodec.decode(m);
        } catch (MalformedException e) {
            assertThat(e.offset()).isBetween(0, bytes.length);
        }
    }

    @Property(tries = 1000)
    void resolveRequestsRoundTrip(@ForAll("requests") LsMessage.ResolveRequest r) throws MalformedException {
        LsMessage back = LsCodec.decode(NlMessage.of(LsCodec.encodeResolveRequest(r)));
        assertThat(back).isEqualTo(r);
    }

    @Property(tries = 1000)
    void repliesRoundTripRecordForRecord(@ForAll @Size(max = 6) List<@net.jqwik.api.From("records") PathRecord> recs,
            @ForAll @IntRange(min = 0, max = 63) int flags, @ForAll int seq) throws MalformedException {
        List<PathRecordData> data = new ArrayList<>();
        for (PathRecord r : recs) {
            data.add(new PathRecordData(flags, r));
        }
        LsMessage m = LsCodec.decode(NlMessage.of(LsCodec.encodeResolveReply(seq, 7, data)));
        assertThat(m).isEqualTo(new LsMessage.ResolveResponse(seq, 7, 0, data, 0));
    }

    @Property(tries = 2000)
    void pathRecordWireImageRoundTrips(@ForAll("records") PathRecord r) {
        byte[] b = r.toBytes();
        assertThat(PathRecord.read(b, 0)).isEqualTo(r);
        assertThat(Arrays.copyOfRange(b, 58, 64)).containsOnly(0);
    }

    @Provide
    Arbitrary<LsMessage.ResolveRequest> requests() {
        Arbitrary<Gid> gid = Arbitraries.longs().tuple2().map(t -> new Gid(t.get1(), t.get2()));
        Arbitrary<String> dev = Arbitraries.strings().withCharRange('a', 'z').numeric().ofMinLength(1).ofMaxLength(63);
        return Combinators.combine(
                        Arbitraries.integers(),
                        dev,
                        Arbitraries.integers().between(0, 255),
                        Arbitraries.integers().between(0, 255),
                        Arbitraries.longs().optional(),
                        gid.injectNull(0.2),
                        gid.injectNull(0.2),
                        Arbitraries.integers().between(0, 255).optional())
                .flatAs((seq, d, port, use, sid, dgid, sgid, tclass) -> Combinators.combine(
                                Arbitraries.integers().between(0, 0xffff).optional(),
                                Arbitraries.integers().between(0, 0xffff).optional())
                        .as((pkey, qos) -> new LsMessage.ResolveRequest(
                                seq,
                                0,
                                d,
                                port,
                                use,
                                sid.map(OptionalLong::of).orElse(OptionalLong.empty()),
                                dgid,
                                sgid,
                                tclass.map(OptionalInt::of).orElse(OptionalInt.empty()),
                                pkey.map(OptionalInt::of).orElse(OptionalInt.empty()),
                                qos.map(OptionalInt::of).orElse(OptionalInt.empty()),
                                0)));
    }

    /** Every field drawn from the bits of six random longs: cheap to generate, and edge values still come up. */
    @Provide
    Arbitrary<PathRecord> records() {
        return Arbitraries.longs().array(long[].class).ofSize(6).map(v -> {
            long a = v[3];
            long b = v[4];
            long c = v[5];
            return new PathRecord(v[0], new Gid(v[1], v[2]), new Gid(v[2] ^ a, v[1] ^ b), (int) (a & 0xffff),
                    (int) ((a >>> 16) & 0xffff), (a >>> 32 & 1) != 0, (int) ((a >>> 33) & 0xfffff),
                    (int) ((a >>> 53) & 0xff), (int) (b & 0xff), (b >>> 8 & 1) != 0, (int) ((b >>> 9) & 0x7f),
                    (int) ((b >>> 16) & 0xffff), (int) ((b >>> 32) & 0xfff), (int) ((b >>> 44) & 0xf),
                    (int) ((b >>> 48) & 3), (int) ((b >>> 50) & 0x3f), (int) ((b >>> 56) & 3), (int) (c & 0x3f),
                    (int) ((c >>> 6) & 3), (int) ((c >>> 8) & 0x3f), (int) ((c >>> 14) & 0xff));
        });
    }
}
