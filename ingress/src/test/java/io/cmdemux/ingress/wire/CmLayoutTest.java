package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.BitSet;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Our encoder against the IBTA field table ({@link SpecLayout}): every field where the spec puts it, nothing else set.
 */
class CmLayoutTest {

    static List<CmMessage> samples() throws Exception {
        return CmSamples.all(InetAddress.getByName("10.0.0.2"), InetAddress.getByName("10.0.0.5"));
    }

    @Test
    void specTableCoversEveryFieldOfEveryMessage() throws Exception {
        for (CmMessage m : samples()) {
            List<String> inTable = SpecLayout.TABLE.get(m.attribute()).stream()
                    .map(SpecLayout.Field::path)
                    .distinct()
                    .collect(Collectors.toList());
            assertThat(inTable)
                    .as(m.attribute().name())
                    .containsExactlyInAnyOrderElementsOf(SpecLayout.leafPaths(m.getClass(), ""));
        }
    }

    @Test
    void everyFieldSitsAtItsIbtaByteAndBit() throws Exception {
        for (CmMessage m : samples()) {
            byte[] mad = CmCodec.encode(Mad.of(m, 1));
            for (SpecLayout.Field f : SpecLayout.TABLE.get(m.attribute())) {
                assertThat(SpecLayout.read(mad, MadHeader.SIZE, f))
                        .as(m.attribute() + "." + f.path())
                        .isEqualTo(SpecLayout.expected(m, f));
            }
        }
    }

    @Test
    void reservedBitsAreZeroEvenWhenEveryFieldIsAllOnes() throws Exception {
        for (CmMessage m : samples()) {
            byte[] mad = CmCodec.encode(Mad.of(CmValues.allOnes(m.attribute()), 1));
            BitSet covered = new BitSet();
            for (SpecLayout.Field f : SpecLayout.TABLE.get(m.attribute())) {
                int first = f.byteOffset() * 8 + f.bitOffset();
                covered.set(first, first + f.width());
            }
            for (int bit = 0; bit < CmMessage.DATA_SIZE * 8; bit++) {
                int value = (mad[MadHeader.SIZE + bit / 8] >> (7 - bit % 8)) & 1;
                assertThat(value)
                        .as("%s bit %d[%d] is %s",
                                m.attribute(), bit / 8, bit % 8, covered.get(bit) ? "a field" : "reserved")
                        .isEqualTo(covered.get(bit) ? 1 : 0);
            }
        }
    }

    @Test
    void madHeaderFollowsIbta13_4_3() {
        MadHeader h = new MadHeader(1, 7, 2, 0x83, 0xBEEF, 0xCAFE, 0x0102030405060708L, 0x0012, 0x99AABBCC);
        byte[] mad = CmCodec.encode(new Mad(h, CmSamples.rej()));
        assertThat(java.util.HexFormat.of().formatHex(mad, 0, 24))
                .isEqualTo("01" + "07" + "02" + "83" + "beef" + "cafe" + "0102030405060708" + "0012" + "0000"
                        + "99aabbcc");
    }
}
