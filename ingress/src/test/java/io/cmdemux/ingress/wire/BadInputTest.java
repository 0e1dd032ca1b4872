package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The bad-input corpus: every case gives a typed result with an offset, never an exception. */
class BadInputTest {

    static FrameResult.Failed failed(FrameResult r) {
        assertThat(r).isInstanceOf(FrameResult.Failed.class);
        return (FrameResult.Failed) r;
    }

    static RoceFrame decoded(FrameResult r) {
        assertThat(r).as("%s", r).isInstanceOf(FrameResult.Decoded.class);
        return ((FrameResult.Decoded) r).frame();
    }

    @Test
    void truncationAtEveryOffsetIsAFailureInsideTheFrame() {
        byte[][] frames = {Frames.reqV4(null), Frames.reqV4(Vlan.of(7)),
                Frames.frame(null, Frames.addr("fd00::1"), Frames.addr("fd00::2"), CmSamples.rep())};
        for (byte[] full : frames) {
            for (int len = 0; len < full.length; len++) {
                FrameResult.Failed f = failed(RoceDecoder.decodeEthernet(full, 0, len));
                assertThat(f.offset()).as("cut at %d", len).isBetween(0, len);
                assertThat(f.reason()).isNotBlank();
            }
        }
        byte[] ip = Arrays.copyOfRange(Frames.reqV4(null), Frames.ETH, Frames.reqV4(null).length);
        for (int len = 0; len < ip.length; len++) {
            assertThat(failed(RoceDecoder.decodeIp(ip, 0, len)).offset()).isBetween(0, len);
        }
    }

    @Test
    void truncatedIpv4PacketNamesTheTotalLengthField() {
        byte[] f = Frames.reqV4(null);
        FrameResult.Failed r = failed(RoceDecoder.decodeEthernet(f, 0, f.length - 1));
        assertThat(r.offset()).isEqualTo(Frames.ETH + 2); // IPv4 total length
        assertThat(r.reason()).contains("total length");
    }

    /** A MAD of {@code delta} more (or fewer) bytes, with IP and UDP lengths and the ICRC made consistent. */
    static byte[] withMadLength(int delta) {
        byte[] f = Frames.reqV4(null);
        int icrcAt = f.length - 4;
        byte[] g = new byte[f.length + delta];
        System.arraycopy(f, 0, g, 0, Math.min(icrcAt, icrcAt + delta));
        int ipTotal = g.length - Frames.ETH;
        g[Frames.ETH + 2] = (byte) (ipTotal >>> 8);
        g[Frames.ETH + 3] = (byte) ipTotal;
        int udpLen = ipTotal - Frames.IPV4;
        g[Frames.ETH + Frames.IPV4 + 4] = (byte) (udpLen >>> 8);
        g[Frames.ETH + Frames.IPV4 + 5] = (byte) udpLen;
        int icrc = Icrc.compute(g, Frames.ETH, Frames.IPV4, g.length - 4);
        Icrc.write(g, g.length - 4, icrc);
        return g;
    }

    @Test
    void madLongerOrShorterThan256BytesIsRejectedAtTheMad() {
        for (int delta : new int[] {-4, -1, 1, 4, 100}) {
            FrameResult.Failed r = failed(RoceDecoder.decodeEthernet(withMadLength(delta)));
            assertThat(r.offset()).as("delta %d", delta).isEqualTo(Frames.MAD_V4);
            assertThat(r.reason()).isEqualTo("MAD is " + (256 + delta) + " bytes, a MAD has 256");
        }
    }

    @Test
    void aFrameThatEndsWhereItsIcrcWouldStartDecodesAndIsFlaggedMissing() {
        for (byte[] whole : new byte[][] {Frames.reqV4(null), Frames.reqV4(Vlan.of(7)),
                Frames.frame(null, Frames.addr("fd00::1"), Frames.addr("fd00::2"), CmSamples.rep())}) {
            RoceFrame r = decoded(RoceDecoder.decodeEthernet(Frames.withoutIcrc(whole)));
            assertThat(r.icrcCheck()).isEqualTo(RoceFrame.IcrcCheck.MISSING);
            assertThat(r.icrcValid()).isFalse();
            assertThat(r.icrc()).isZero();
            assertThat(r.mad()).isEqualTo(decoded(RoceDecoder.decodeEthernet(whole)).mad());
        }
        byte[] ip = Frames.withoutIcrc(Frames.reqV4(null));
        assertThat(decoded(RoceDecoder.decodeIp(Arrays.copyOfRange(ip, Frames.ETH, ip.length)))
                        .icrcCheck())
                .isEqualTo(RoceFrame.IcrcCheck.MISSING);
    }

    @Test
    void aMadFourBytesShortWithAValidIcrcIsNotAMissingIcrc() {
        // withMadLength(-4) ends in a right ICRC over 252 bytes of MAD: the MAD is short, the ICRC is there.
        FrameResult.Failed r = failed(RoceDecoder.decodeEthernet(withMadLength(-4)));
        assertThat(r).isEqualTo(new FrameResult.Failed(Frames.MAD_V4, "MAD is 252 bytes, a MAD has 256"));
    }

    @Test
    void wrongIcrcStillDecodesButIsFlagged() {
        byte[] f = Frames.reqV4(null);
        f[f.length - 1] ^= 0x01;
        RoceFrame r = decoded(RoceDecoder.decodeEthernet(f));
        assertThat(r.icrcValid()).isFalse();
        assertThat(r.icrcCheck()).isEqualTo(RoceFrame.IcrcCheck.WRONG);
        assertThat(r.mad().message()).isEqualTo(CmSamples.req(Frames.addr("10.0.0.2"), Frames.addr("10.0.0.5")));
    }

    @Test
    void changedMadByteBreaksTheIcrcButChangedTtlAndTosDoNot() {
        byte[] f = Frames.reqV4(null);
        f[Frames.MAD_V4 + 100] ^= 0x10;
        assertThat(decoded(RoceDecoder.decodeEthernet(f)).icrcValid()).isFalse();
        byte[] g = Frames.reqV4(null);
        g[Frames.ETH + 1] = (byte) 0xb8; // TOS: routers rewrite DSCP/ECN, the ICRC masks it
        g[Frames.ETH + 8] = 3; // TTL
        assertThat(decoded(RoceDecoder.decodeEthernet(g)).icrcValid()).isTrue();
    }

    @Test
    void unknownAttributeIdIsAFailureAtTheAttributeField() {
        byte[] f = Frames.reqV4(null);
        f[Frames.MAD_V4 + 17] = 0x19; // LoadAlternatePath
        FrameResult.Failed r = failed(RoceDecoder.decodeEthernet(f));
        assertThat(r.offset()).isEqualTo(Frames.MAD_V4 + 16);
        assertThat(r.reason()).isEqualTo("unknown CM attribute ID 0x0019");
    }

    @Test
    void nonCmManagementClassIsAFailure() {
        byte[] f = Frames.reqV4(null);
        f[Frames.MAD_V4 + 1] = 0x03; // Subnet Administration
        FrameResult.Failed r = failed(RoceDecoder.decodeEthernet(f));
        assertThat(r.offset()).isEqualTo(Frames.MAD_V4 + 1);
        assertThat(r.reason()).contains("not CM");
    }

    @Test
    void framesThatAreNotCmMadsSayWhyAndWhere() {
        byte[] arp = Frames.reqV4(null);
        arp[12] = 0x08;
        arp[13] = 0x06;
        assertThat(failed(RoceDecoder.decodeEthernet(arp)).offset()).isEqualTo(12);

        byte[] port = Frames.reqV4(null);
        port[Frames.ETH + Frames.IPV4 + 3] = 0x00; // dport 4791 (0x12b7) -> 0x1200
        assertThat(failed(RoceDecoder.decodeEthernet(port)))
                .isEqualTo(new FrameResult.Failed(Frames.ETH + Frames.IPV4 + 2, "UDP port 4608 is not RoCEv2 (4791)"));

        byte[] rc = Frames.reqV4(null);
        rc[Frames.ETH + Frames.IPV4 + Frames.UDP] = 0x04; // RC SEND_ONLY
        assertThat(failed(RoceDecoder.decodeEthernet(rc)).offset()).isEqualTo(Frames.ETH + Frames.IPV4 + Frames.UDP);

        byte[] qp = Frames.reqV4(null);
        qp[Frames.ETH + Frames.IPV4 + Frames.UDP + 7] = 0x05;
        assertThat(failed(RoceDecoder.decodeEthernet(qp)).reason()).contains("QP 5 is not QP1");

        byte[] tcp = Frames.reqV4(null);
        tcp[Frames.ETH + 9] = 6;
        assertThat(failed(RoceDecoder.decodeEthernet(tcp)))
                .isEqualTo(new FrameResult.Failed(Frames.ETH + 9, "IP protocol 6 is not UDP"));

        byte[] frag = Frames.reqV4(null);
        frag[Frames.ETH + 6] = 0x20; // More Fragments
        assertThat(failed(RoceDecoder.decodeEthernet(frag)).reason()).isEqualTo("fragmented IPv4 packet");

        byte[] qinq = Frames.reqV4(Vlan.of(5));
        qinq[16] = (byte) 0x81;
        qinq[17] = 0x00;
        assertThat(failed(RoceDecoder.decodeEthernet(qinq)).reason()).contains("stacked VLAN");
    }

    @Test
    void nonZeroCmaVersionIsRefusedLikeTheKernel() {
        InetAddress a = Frames.addr("10.0.0.2");
        CmReq req = CmSamples.req(a, Frames.addr("10.0.0.5"));
        byte[] pd = req.privateData().toByteArray();
        pd[0] = 1;
        CmReq bad = withPrivateData(req, Octets.of(pd));
        RoceFrame f = decoded(RoceDecoder.decodeEthernet(Frames.frame(null, a, Frames.addr("10.0.0.5"), bad)));
        assertThat(CmAddressing.of((CmReq) f.mad().message()))
                .isEqualTo(new CmAddressing.BadCmaVersion(new ServiceId(req.serviceId()), 1));
    }

    @Test
    void anIpVersionOtherThanFourOrSixIsAfIbNotAnError() {
        CmReq req = CmSamples.req(Frames.addr("10.0.0.2"), Frames.addr("10.0.0.5"));
        // The port space does not decide (cma_get_net_dev reads the header of every request).
        CmReq ib = withServiceId(req, 0x013F0000L | 0x1234);
        assertThat(CmAddressing.of(ib)).isInstanceOf(CmAddressing.Ip.class);
        byte[] pd = req.privateData().toByteArray();
        pd[1] = 0x00; // IP version nibble 0
        assertThat(CmAddressing.of(withPrivateData(req, Octets.of(pd)))).isEqualTo(
                new CmAddressing.NativeIb(new ServiceId(req.serviceId()), "IP version 0 in the rdma_cm header"));
    }

    static CmReq withPrivateData(CmReq r, Octets pd) {
        return new CmReq(r.localCommId(), r.vendorId(), r.serviceId(), r.localCaGuid(), r.localQkey(), r.localQpn(),
                r.responderResources(), r.localEecn(), r.initiatorDepth(), r.remoteEecn(), r.remoteCmResponseTimeout(),
                r.transportServiceType(), r.endToEndFlowControl(), r.startingPsn(), r.localCmResponseTimeout(),
                r.retryCount(), r.pkey(), r.pathMtu(), r.rdcExists(), r.rnrRetryCount(), r.maxCmRetries(), r.srq(),
                r.extendedTransportType(), r.primaryPath(), r.alternatePath(), r.sapSupported(), pd);
    }

    static CmReq withServiceId(CmReq r, long sid) {
        return new CmReq(r.localCommId(), r.vendorId(), sid, r.localCaGuid(), r.localQkey(), r.localQpn(),
                r.responderResources(), r.localEecn(), r.initiatorDepth(), r.remoteEecn(), r.remoteCmResponseTimeout(),
                r.transportServiceType(), r.endToEndFlowControl(), r.startingPsn(), r.localCmResponseTimeout(),
                r.retryCount(), r.pkey(), r.pathMtu(), r.rdcExists(), r.rnrRetryCount(), r.maxCmRetries(), r.srq(),
                r.extendedTransportType(), r.primaryPath(), r.alternatePath(), r.sapSupported(), r.privateData());
    }
}
