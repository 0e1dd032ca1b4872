package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * An answer built from the headers kept of a request (what the daemon keeps of an unanswered REQ) is
 * byte for byte the answer built from the whole request, in every frame shape, whatever the buffer
 * held before.
 */
class ReplyHeadersProperties {

    @Property(tries = 500)
    void answerFromKeptHeadersEqualsAnswerFromTheRequest(@ForAll CmAttribute requestKind,
            @ForAll CmAttribute answerKind, @ForAll @Size(232) byte[] data, @ForAll @Size(232) byte[] answerData,
            @ForAll boolean v6, @ForAll boolean tagged, @ForAll boolean bareIp, @ForAll @IntRange(max = 40) int offset,
            @ForAll byte garbage, @ForAll @IntRange(max = 0xffffff) int psn)
            throws Exception {
        L3Header l3 = v6 ? new L3Header(6, Gid.parse("fd00::1"), Gid.parse("fd00::2"), 3, 9, 0x12345)
                : new L3Header(4, Gid.parse("::ffff:1.2.3.4"), Gid.parse("::ffff:5.6.7.8"), 3, 9, 0);
        byte[] frame = RoceFrameBuilder.cmFrame(CmSamples.l2(tagged ? new Vlan(2, true, 33) : null), l3, 0xD000, 0x7FFF,
                77, CmCodec.decode(Frames.sendMad(requestKind, data), 0, Mad.SIZE));
        int l3At = Frames.ETH + (tagged ? Frames.VLAN : 0);
        RoceFrame request = ((FrameResult.Decoded) (bareIp
                ? RoceDecoder.decodeIp(Arrays.copyOfRange(frame, l3At, frame.length))
                : RoceDecoder.decodeEthernet(frame))).frame();
        CmMessage answer = CmCodec.decode(Frames.sendMad(answerKind, answerData), 0, Mad.SIZE).message();

        byte[] kept = new byte[offset + RoceFrameBuilder.MAX_REPLY_HEADERS + 7];
        Arrays.fill(kept, garbage);
        int length = RoceFrameBuilder.writeReplyHeaders(request, 0xC000, psn, kept, offset);
        byte[] fromKept = RoceFrameBuilder.reply(kept, offset, length, answer, request.mad().header().transactionId());

        assertThat(length).isLessThanOrEqualTo(RoceFrameBuilder.MAX_REPLY_HEADERS);
        assertThat(fromKept).isEqualTo(RoceFrameBuilder.reply(request, answer, 0xC000, psn));
        assertThat(((FrameResult.Decoded)
                                (bareIp ? RoceDecoder.decodeIp(fromKept) : RoceDecoder.decodeEthernet(fromKept)))
                        .frame()
                        .icrcValid())
                .isTrue();
    }
}
