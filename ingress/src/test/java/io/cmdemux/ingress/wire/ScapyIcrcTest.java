package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.ingress.capture.CaptureWriter;
import io.cmdemux.ingress.oracle.Scapy;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scapy (Debian python3-scapy) as a second, independent RoCEv2 encoder for the ICRC. scapy's
 * {@code BTH.compute_icrc} handles IPv4 only; for IPv6 the script lets scapy serialise the masked
 * pseudo header (traffic class, flow label, hop limit, UDP checksum, BTH byte 4 set to ones, as
 * IBTA Annex A17 says) and takes zlib's CRC-32 of it, the way scapy's IPv4 path does.
 */
@Tag("scapy")
class ScapyIcrcTest {
    static final String SCRIPT = String.join("\n",
            "import sys, struct, zlib",
            "from scapy.all import rdpcap, Ether, IPv6, UDP, raw",
            "from scapy.contrib.roce import BTH",
            Scapy.ICRC_V6,
            "for p in rdpcap(sys.argv[1]):",
            "    q = Ether(raw(p))",
            "    if BTH not in q:",
            "        print('nobth'); continue",
            "    if IPv6 in q:",
            "        print(raw(p)[-4:].hex(), icrc_v6(q).hex(), 'ipv6-pseudo-header')",
            "    else:",
            "        q[BTH].icrc = None",
            "        print(raw(p)[-4:].hex(), raw(q)[-4:].hex(), 'scapy-compute_icrc')",
            "");

    @TempDir
    Path dir;

    @Test
    void scapyComputesTheSameIcrcAsOurBuilder() throws Exception {
        List<byte[]> frames = new ArrayList<>();
        InetAddress a4 = InetAddress.getByName("192.168.7.1");
        InetAddress b4 = InetAddress.getByName("192.168.7.200");
        InetAddress a6 = InetAddress.getByName("2001:db8::1");
        InetAddress b6 = InetAddress.getByName("2001:db8::abcd");
        long tid = 1;
        for (Vlan vlan : Arrays.asList(null, Vlan.of(42))) {
            for (InetAddress[] pair : List.of(new InetAddress[] {a4, b4}, new InetAddress[] {a6, b6})) {
                for (CmMessage m : CmSamples.all(pair[0], pair[1])) {
                    frames.add(RoceFrameBuilder.cmFrame(CmSamples.l2(vlan), CmSamples.l3(pair[0], pair[1]),
                            0xC000 + (int) tid, 0x8001, (int) tid, Mad.of(m, tid++)));
                }
            }
        }
        Random rnd = new Random(20240603);
        for (int i = 0; i < 64; i++) {
            boolean v6 = i % 2 == 1;
            byte[] s = new byte[v6 ? 16 : 4];
            byte[] d = new byte[v6 ? 16 : 4];
            rnd.nextBytes(s);
            rnd.nextBytes(d);
            InetAddress src = InetAddress.getByAddress(s);
            InetAddress dst = InetAddress.getByAddress(d);
            // Vary the fields the ICRC masks: they must not change it, and scapy must agree.
            L3Header l3 = v6
                    ? new L3Header(
                            6, Gid.ofIp(src), Gid.ofIp(dst), rnd.nextInt(256), rnd.nextInt(256), rnd.nextInt(1 << 20))
                    : new L3Header(4, Gid.ofIp(src), Gid.ofIp(dst), rnd.nextInt(256), rnd.nextInt(256), 0);
            Bth bth = new Bth(Bth.OPCODE_UD_SEND_ONLY, rnd.nextBoolean(), rnd.nextBoolean(), 0, 0, rnd.nextInt(1 << 16),
                    rnd.nextBoolean(), rnd.nextBoolean(), Bth.GSI_QP, rnd.nextBoolean(), rnd.nextInt(1 << 24));
            CmReq req = CmSamples.req(src, dst);
            frames.add(RoceFrameBuilder.build(CmSamples.l2(i % 3 == 0 ? Vlan.of(rnd.nextInt(4095)) : null), l3,
                    0xC000 | rnd.nextInt(0x4000), bth, new Deth(Deth.GSI_QKEY, 1), Mad.of(req, rnd.nextLong())));
        }
        Path pcap = dir.resolve("icrc.pcap");
        try (OutputStream out = Files.newOutputStream(pcap); CaptureWriter w = CaptureWriter.ethernet(out)) {
            for (byte[] f : frames) {
                w.write(f);
            }
        }
        String[] lines = Scapy.runScript(SCRIPT, List.of(pcap.toString())).strip().split("\n");
        assertThat(lines).hasSize(frames.size());
        HexFormat hex = HexFormat.of();
        int viaScapyIcrc = 0;
        for (int i = 0; i < frames.size(); i++) {
            String[] cols = lines[i].split(" ");
            byte[] f = frames.get(i);
            String ours = hex.formatHex(f, f.length - 4, f.length);
            assertThat(cols).as("scapy's line for frame %d: %s", i + 1, lines[i]).hasSize(3);
            assertThat(cols[0]).as("frame %d as scapy read it", i + 1).isEqualTo(ours);
            assertThat(cols[1]).as("frame %d: scapy's ICRC (%s) vs ours", i + 1, cols[2]).isEqualTo(ours);
            if (cols[2].equals("scapy-compute_icrc")) {
                viaScapyIcrc++;
            }
        }
        assertThat(viaScapyIcrc).as("frames checked by scapy's own compute_icrc").isGreaterThanOrEqualTo(50);
    }

    @Test
    void ourDecoderAcceptsEveryIcrcScapyWrote() throws Exception {
        // scapy builds the whole frame here (Ether/IP/UDP/BTH with
        // our DETH+MAD as payload) and fills in the ICRC itself.
        byte[] mad = CmCodec.encode(Mad.of(CmSamples.rej(), 77));
        String script = String.join("\n", "import sys", "from scapy.all import Ether, Dot1Q, IP, UDP, Raw, raw, wrpcap",
                "from scapy.contrib.roce import BTH", "payload = bytes.fromhex(sys.argv[2])", "pkts = []",
                "for tos, ttl, vlan in [(0, 64, None), (0xb8, 1, 7), (0x03, 255, None)]:",
                "    l2 = Ether(src='02:00:00:00:00:0a', dst='02:00:00:00:00:0b')",
                "    if vlan is not None: l2 = l2 / Dot1Q(vlan=vlan)",
                "    pkts.append(l2 / IP(src='10.1.2.3', dst='10.4.5.6', tos=tos, ttl=ttl, flags='DF')",
                "                / UDP(sport=49152, dport=4791, chksum=0)",
                "                / BTH(opcode=0x64, migreq=1, pkey=0xffff, dqpn=1, psn=9) / Raw(payload))",
                "wrpcap(sys.argv[1], pkts)", "");
        byte[] payload = new byte[Deth.SIZE + Mad.SIZE];
        Deth.gsi().encode(payload, 0);
        System.arraycopy(mad, 0, payload, Deth.SIZE, Mad.SIZE);
        Path pcap = dir.resolve("scapy.pcap");
        Scapy.runScript(script, List.of(pcap.toString(), HexFormat.of().formatHex(payload)));
        int n = 0;
        try (var in = Files.newInputStream(pcap); var r = new io.cmdemux.ingress.capture.CaptureReader(in)) {
            for (var f = r.next(); f != null; f = r.next()) {
                assertThat(f.result()).isInstanceOf(FrameResult.Decoded.class);
                RoceFrame frame = ((FrameResult.Decoded) f.result()).frame();
                assertThat(frame.icrcValid()).as("frame %d", f.index()).isTrue();
                assertThat(frame.mad().message()).isEqualTo(CmSamples.rej());
                n++;
            }
        }
        assertThat(n).isEqualTo(3);
    }
}
