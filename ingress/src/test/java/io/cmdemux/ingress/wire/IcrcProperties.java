package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The one-pass ICRC (a CRC of the frame as it is, corrected by tables) equals the definition (mask a
 * copy of the headers, CRC the pseudo-LRH and the lot) on arbitrary bytes, masked fields included.
 * ScapyIcrcTest checks the definition against an independent encoder.
 */
class IcrcProperties {
    private static final int MAD_FRAME_AFTER_IP = 8 + Bth.SIZE + Deth.SIZE + Mad.SIZE;

    @Property(tries = 3000)
    void onePassEqualsTheDefinitionForIpv4(
            @ForAll @Size(min = 20 + MAD_FRAME_AFTER_IP, max = 20 + MAD_FRAME_AFTER_IP) byte[] packet,
            @ForAll @IntRange(min = 0, max = 40) int at) {
        byte[] f = inFrame(packet, at, 0x40);
        assertThat(Icrc.compute(f, at, 20, f.length - Icrc.SIZE))
                .isEqualTo(Icrc.computeByCopy(f, at, 20, f.length - Icrc.SIZE));
    }

    @Property(tries = 3000)
    void onePassEqualsTheDefinitionForIpv6(
            @ForAll @Size(min = 40 + MAD_FRAME_AFTER_IP, max = 40 + MAD_FRAME_AFTER_IP) byte[] packet,
            @ForAll @IntRange(min = 0, max = 40) int at) {
        byte[] f = inFrame(packet, at, 0x60);
        assertThat(Icrc.compute(f, at, 40, f.length - Icrc.SIZE))
                .isEqualTo(Icrc.computeByCopy(f, at, 40, f.length - Icrc.SIZE));
    }

    @Property(tries = 500)
    void otherShapesTakeTheDefinition(
            @ForAll @Size(min = 24 + MAD_FRAME_AFTER_IP + 3, max = 24 + MAD_FRAME_AFTER_IP + 3) byte[] packet) {
        // IPv4 with one option word and a 3-byte pad: not a shape with tables.
        byte[] f = inFrame(packet, 0, 0x40);
        assertThat(Icrc.compute(f, 0, 24, f.length - Icrc.SIZE))
                .isEqualTo(Icrc.computeByCopy(f, 0, 24, f.length - Icrc.SIZE));
    }

    /** The packet at {@code at} in a frame with an ICRC slot behind it, its version nibble set. */
    private static byte[] inFrame(byte[] packet, int at, int version) {
        byte[] f = new byte[at + packet.length + Icrc.SIZE];
        System.arraycopy(packet, 0, f, at, packet.length);
        f[at] = (byte) (version | (f[at] & 0x0f));
        return f;
    }
}
