package io.cmdemux.render;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.ingress.capture.CapturedFrame;
import io.cmdemux.ingress.wire.CmAttribute;
import io.cmdemux.ingress.wire.CmSamples;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.Frames;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrame;
import java.net.InetAddress;
import java.util.HexFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/**
 * decode renders any request in every form without throwing: a REQ's or SIDR REQ's 36 header bytes
 * may hold anything (AF_IB user data, a foreign cma_version, any IP version nibble), and the ICRC may
 * be right, wrong or missing.
 */
class FrameViewProperties {

    @Property(tries = 500)
    void anyRequestRendersWithItsHeaderAndTheKernelsReading(@ForAll boolean sidr, @ForAll @Size(232) byte[] data,
            @ForAll boolean v6, @ForAll RoceFrame.IcrcCheck icrc) {
        InetAddress src = Frames.addr(v6 ? "fd00::2" : "10.0.0.2");
        InetAddress dst = Frames.addr(v6 ? "fd00::5" : "10.0.0.5");
        byte[] f = Frames.withMad(Frames.frame(null, src, dst, CmSamples.rtu()),
                Frames.sendMad(sidr ? CmAttribute.SIDR_REQ : CmAttribute.REQ, data));
        if (icrc == RoceFrame.IcrcCheck.WRONG) {
            f[f.length - 1] ^= 0x01;
        } else if (icrc == RoceFrame.IcrcCheck.MISSING) {
            f = Frames.withoutIcrc(f);
        }
        FrameResult r = RoceDecoder.decodeEthernet(f);
        CapturedFrame cf = new CapturedFrame(1, 0, 1, f.length, r);

        JsonNode j = FrameView.json(cf);
        assertThat(j.get("icrcCheck").asText()).isEqualTo(icrc.name().toLowerCase(java.util.Locale.ROOT));
        assertThat(j.get("icrc").isNull()).isEqualTo(icrc == RoceFrame.IcrcCheck.MISSING);
        assertThat(j.at("/mad/data").asText()).isEqualTo(HexFormat.of().formatHex(data));
        assertThat(j.at("/cm/ipCm/kernel/reading").asText()).isIn("ip", "af_ib", "refused");
        assertThat(j.at("/cm/ipCm/ipVersion").asInt()).isEqualTo((data[(sidr ? 16 : 140) + 1] & 0xff) >>> 4);
        assertThat(FrameView.line(cf)).contains(sidr ? "ServiceIDResReq" : "ConnectRequest");
        assertThat(FrameView.verbose(cf)).contains("kernel:");
    }
}
