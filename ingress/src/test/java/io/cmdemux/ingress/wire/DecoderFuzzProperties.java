package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** jqwik fuzzes the frame decoder: no exception escapes, every failure points inside the input, nothing hangs. */
class DecoderFuzzProperties {

    static void decodeAllWays(byte[] b) {
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            check(RoceDecoder.decodeEthernet(b), b.length);
            check(RoceDecoder.decodeIp(b), b.length);
        });
    }

    static void check(FrameResult r, int length) {
        if (r instanceof FrameResult.Failed f) {
            assertThat(f.offset()).isBetween(0, length);
            assertThat(f.reason()).isNotBlank();
        }
    }

    @Property(tries = 2000)
    void randomBytesNeverThrow(@ForAll @Size(max = 400) byte[] bytes) {
        decodeAllWays(bytes);
    }

    @Provide
    Arbitrary<byte[]> validFrames() {
        return Arbitraries.of(
                Frames.reqV4(null),
                Frames.reqV4(Vlan.of(3)),
                Frames.frame(null, Frames.addr("fd00::1"), Frames.addr("fd00::9"), CmSamples.sidrRep()),
                Frames.frame(Vlan.of(9), Frames.addr("10.9.9.9"), Frames.addr("10.1.1.1"), CmSamples.mra()),
                // Without their ICRC, so that the mutations also go the way of a frame that ends after its MAD.
                Frames.withoutIcrc(Frames.reqV4(null)),
                Frames.withoutIcrc(
                        Frames.frame(Vlan.of(4), Frames.addr("fd00::1"), Frames.addr("fd00::9"), CmSamples.sidrReq())));
    }

    @Property(tries = 3000)
    void mutatedValidFramesNeverThrow(
            @ForAll("validFrames") byte[] frame,
            @ForAll @Size(min = 1, max = 8) int[] positions,
            @ForAll @Size(min = 1, max = 8) byte[] values,
            @ForAll @IntRange(min = -40, max = 40) int lengthChange) {
        byte[] f = Arrays.copyOf(frame, Math.max(0, frame.length + lengthChange));
        for (int i = 0; i < positions.length && f.length > 0; i++) {
            f[Math.floorMod(positions[i], f.length)] = values[i % values.length];
        }
        decodeAllWays(f);
        // Ethernet framing stripped: the same bytes as a bare IP packet.
        if (f.length > Frames.ETH) {
            decodeAllWays(Arrays.copyOfRange(f, Frames.ETH, f.length));
        }
    }

    @Property(tries = 1000)
    void headerLengthFieldsSetToAnythingNeverThrow(
            @ForAll("validFrames") byte[] frame, @ForAll short ipLength, @ForAll short udpLength, @ForAll byte ihl) {
        byte[] f = frame.clone();
        int l3 = (f[12] == (byte) 0x81) ? Frames.ETH + Frames.VLAN : Frames.ETH;
        boolean v4 = (f[l3] >>> 4) == 4;
        if (v4) {
            f[l3] = (byte) (0x40 | (ihl & 0xf));
            f[l3 + 2] = (byte) (ipLength >>> 8);
            f[l3 + 3] = (byte) ipLength;
        } else {
            f[l3 + 4] = (byte) (ipLength >>> 8);
            f[l3 + 5] = (byte) ipLength;
        }
        int udp = l3 + (v4 ? Frames.IPV4 : Frames.IPV6);
        f[udp + 4] = (byte) (udpLength >>> 8);
        f[udp + 5] = (byte) udpLength;
        decodeAllWays(f);
    }
}
