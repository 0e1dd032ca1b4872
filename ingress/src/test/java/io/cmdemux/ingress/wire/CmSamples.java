package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.HwAddr;
import java.net.InetAddress;
import java.util.List;

/**
 * One message of each CM type with every field set to a distinct, non-zero value, so that a field
 * written to the wrong place shows up. The values are test inputs, chosen by hand.
 */
public final class CmSamples {
    private CmSamples() {}

    public static final HwAddr MAC_A = HwAddr.parse("02:00:00:00:00:0a");
    public static final HwAddr MAC_B = HwAddr.parse("02:00:00:00:00:0b");

    public static CmPath primaryPath(Gid local, Gid remote) {
        return new CmPath(0x1234, 0x5678, local, remote, 0xABCDE, 0x2A, 0x60, 0x40, 0x9, true, 0x13);
    }

    public static CmPath alternatePath() {
        return new CmPath(0x0102, 0x0304, Gid.parse("fe80::1:2:3:4"), Gid.parse("fe80::5:6:7:8"),
                0x54321, 0x15, 0x20, 0x7f, 0x5, true, 0x0e);
    }

    public static byte[] consumerData(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + 7 * i);
        }
        return b;
    }

    public static CmReq req(InetAddress src, InetAddress dst) {
        CmaHeader h = CmaHeader.of(src, 48879, dst);
        return new CmReq(0x11223344, 0x00ABCDEF, ServiceId.of(PortSpace.TCP, 18515).value(), 0x0002c90300a1b2c3L,
                0x0BADF00D, 0x000A1B, 0xC4, 0x000C0D, 0x33, 0x000E0F, 0x16, 0x1, true, 0x123456, 0x12, 0x5, 0xFFFF, 0x5,
                true, 0x6, 0xF, true, 0x3, primaryPath(Gid.ofIp(src), Gid.ofIp(dst)), alternatePath(), true,
                h.toPrivateData(consumerData(20, 0x40)));
    }

    public static CmMra mra() {
        return new CmMra(0x01020304, 0x05060708, 0x2, 0x1b, Octets.of(consumerData(222, 1)));
    }

    public static CmRej rej() {
        return new CmRej(0x0A0B0C0D, 0x11223344, 0x1, 0x48, RejReason.CONSUMER_DEFINED.code(),
                Octets.of(consumerData(72, 9)), Octets.of(consumerData(148, 3)));
    }

    public static CmRep rep() {
        return new CmRep(0x21222324, 0x11223344, 0x31323334, 0x00ABCD, 0x00BCDE, 0x00CDEF, 0x00FEDCBA, 0x41, 0x42,
                0x1f, 0x2, true, 0x7, true, 0x0002c90300d4e5f6L, Octets.of(consumerData(196, 5)));
    }

    public static CmRtu rtu() {
        return new CmRtu(0x11223344, 0x21222324, Octets.of(consumerData(224, 11)));
    }

    public static CmDreq dreq() {
        return new CmDreq(0x51525354, 0x61626364, 0x00A1B2, Octets.of(consumerData(220, 13)));
    }

    public static CmDrep drep() {
        return new CmDrep(0x71727374, 0x51525354, Octets.of(consumerData(224, 17)));
    }

    public static CmSidrReq sidrReq() {
        return new CmSidrReq(
                0x0C0D0E0F, 0x8001, ServiceId.of(PortSpace.UDP, 4791).value(), Octets.of(consumerData(216, 19)));
    }

    public static CmSidrRep sidrRep() {
        return new CmSidrRep(0x0C0D0E0F, 0x2, 0x48, 0x00C0FFEE, 0x00D1E2, ServiceId.of(PortSpace.UDP, 4791).value(),
                0x0EADBEEF, Octets.of(consumerData(72, 23)), Octets.of(consumerData(136, 29)));
    }

    public static List<CmMessage> all(InetAddress src, InetAddress dst) {
        return List.of(req(src, dst), mra(), rej(), rep(), rtu(), dreq(), drep(), sidrReq(), sidrRep());
    }

    public static L3Header l3(InetAddress src, InetAddress dst) {
        Gid s = Gid.ofIp(src);
        Gid d = Gid.ofIp(dst);
        return s.isIpv4Mapped() ? new L3Header(4, s, d, 0x68, 63, 0) : new L3Header(6, s, d, 0x68, 63, 0x9ABCD);
    }

    public static L2Header l2(Vlan vlan) {
        return new L2Header(MAC_B, MAC_A, vlan);
    }
}
