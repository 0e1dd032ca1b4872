package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.ingress.capture.CaptureWriter;
import io.cmdemux.ingress.oracle.Tshark;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A REJ built as the answer to a captured REQ, checked by tshark (Debian package tshark). */
@Tag("tshark")
class ReplyFrameTest {
    @TempDir
    Path dir;

    @Test
    void rejectAnswersTheRequestFromTheAddressItTargeted() throws Exception {
        byte[] reqFrame = Frames.frame(new Vlan(3, false, 55), Frames.addr("10.0.0.2"), Frames.addr("10.0.0.5"),
                CmSamples.req(Frames.addr("10.0.0.2"), Frames.addr("10.0.0.5")));
        RoceFrame req = ((FrameResult.Decoded) RoceDecoder.decodeEthernet(reqFrame)).frame();
        CmReq r = (CmReq) req.mad().message();
        CmRej rej = CmRej.ofReq(0, r.localCommId(), RejReason.INVALID_SERVICE_ID, Octets.zeros(0), Octets.zeros(0));
        byte[] answer = RoceFrameBuilder.reply(req, rej, 0xC7C7, 1);

        Path pcap = dir.resolve("reply.pcap");
        try (OutputStream o = Files.newOutputStream(pcap); CaptureWriter w = CaptureWriter.ethernet(o)) {
            w.write(reqFrame);
            w.write(answer);
        }
        List<Map<String, String>> rows = Tshark.fields(pcap,
                List.of(
                        "eth.src",
                        "eth.dst",
                        "vlan.id",
                        "ip.src",
                        "ip.dst",
                        "infiniband.bth.p_key",
                        "infiniband.mad.transactionid",
                        "infiniband.cm.req",
                        "infiniband.cm.rej.remotecommid",
                        "infiniband.cm.rej.reason",
                        "infiniband.cm.rej.msgrej"));
        Map<String, String> q = rows.get(0);
        Map<String, String> a = rows.get(1);
        assertThat(a.get("eth.src")).isEqualTo(q.get("eth.dst"));
        assertThat(a.get("eth.dst")).isEqualTo(q.get("eth.src"));
        assertThat(a.get("vlan.id")).isEqualTo("55");
        assertThat(a.get("ip.src")).isEqualTo(q.get("ip.dst"));
        assertThat(a.get("ip.dst")).isEqualTo(q.get("ip.src"));
        assertThat(a.get("infiniband.bth.p_key")).isEqualTo(q.get("infiniband.bth.p_key"));
        assertThat(a.get("infiniband.mad.transactionid")).isEqualTo(q.get("infiniband.mad.transactionid"));
        assertThat(Tshark.number(a.get("infiniband.cm.rej.remotecommid")))
                .isEqualTo(Tshark.number(q.get("infiniband.cm.req")));
        assertThat(Tshark.number(a.get("infiniband.cm.rej.reason"))).isEqualTo(8);
        assertThat(Tshark.number(a.get("infiniband.cm.rej.msgrej"))).isEqualTo(0); // 0 = REQ rejected
        assertThat(((FrameResult.Decoded) RoceDecoder.decodeEthernet(answer)).frame().icrcValid()).isTrue();
    }
}
