package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import java.util.EnumMap;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/**
 * Round trips over every bit pattern: any CM data decodes, and encodes back to the same bytes except
 * the bits IBTA reserves (taken from the spec table, not from the codec), which come back zero.
 */
class CmCodecRoundTripProperties {
    static final Map<CmAttribute, BitSet> FIELD_BITS = new EnumMap<>(CmAttribute.class);

    static {
        for (Map.Entry<CmAttribute, java.util.List<SpecLayout.Field>> e : SpecLayout.TABLE.entrySet()) {
            BitSet bits = new BitSet();
            for (SpecLayout.Field f : e.getValue()) {
                int first = f.byteOffset() * 8 + f.bitOffset();
                bits.set(first, first + f.width());
            }
            FIELD_BITS.put(e.getKey(), bits);
        }
    }

    @Property(tries = 3000)
    void anyCmDataSurvivesDecodeEncodeExceptReservedBits(@ForAll CmAttribute attribute, @ForAll @Size(232) byte[] data,
            @ForAll long tid, @ForAll int attributeModifier, @ForAll byte method) throws Exception {
        byte[] mad = new byte[Mad.SIZE];
        mad[0] = 1;
        mad[1] = 7;
        mad[2] = 2;
        mad[3] = method;
        java.nio.ByteBuffer.wrap(mad)
                .putLong(8, tid)
                .putShort(16, (short) attribute.id())
                .putInt(20, attributeModifier);
        System.arraycopy(data, 0, mad, MadHeader.SIZE, data.length);

        Mad decoded = CmCodec.decode(mad, 0, Mad.SIZE);
        byte[] again = CmCodec.encode(decoded);

        byte[] expected = mad.clone();
        BitSet fields = FIELD_BITS.get(attribute);
        for (int bit = 0; bit < CmMessage.DATA_SIZE * 8; bit++) {
            if (!fields.get(bit)) {
                expected[MadHeader.SIZE + bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
            }
        }
        assertThat(again).isEqualTo(expected);
        assertThat(CmCodec.decode(again, 0, Mad.SIZE)).isEqualTo(decoded);
    }

    @Property(tries = 500)
    void framesRoundTripThroughBuilderAndDecoder(
            @ForAll CmAttribute attribute, @ForAll @Size(232) byte[] data, @ForAll boolean v6, @ForAll boolean tagged)
            throws Exception {
        byte[] mad = Frames.sendMad(attribute, data);
        Mad m = CmCodec.decode(mad, 0, Mad.SIZE);
        L3Header l3 = v6 ? new L3Header(6, Gid.parse("fd00::1"), Gid.parse("fd00::2"), 3, 9, 0x12345)
                : new L3Header(4, Gid.parse("::ffff:1.2.3.4"), Gid.parse("::ffff:5.6.7.8"), 3, 9, 0);
        L2Header l2 = CmSamples.l2(tagged ? new Vlan(2, true, 33) : null);
        byte[] frame = RoceFrameBuilder.cmFrame(l2, l3, 0xD000, 0x7FFF, 77, m);
        FrameResult r = RoceDecoder.decodeEthernet(frame);
        assertThat(r).isInstanceOf(FrameResult.Decoded.class);
        RoceFrame f = ((FrameResult.Decoded) r).frame();
        assertThat(f.mad()).isEqualTo(m);
        assertThat(f.icrcValid()).isTrue();
        assertThat(f.l2()).isEqualTo(l2);
        assertThat(f.l3()).isEqualTo(l3);
        assertThat(f.bth()).isEqualTo(Bth.cmMad(0x7FFF, 77));
        assertThat(f.deth()).isEqualTo(Deth.gsi());
        assertThat(f.udpSrcPort()).isEqualTo(0xD000);
    }
}
