package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.netdev.GoldenMessages.Expect;
import io.cmdemux.netdev.GoldenMessages.Golden;
import java.util.HexFormat;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Our encoder against requests laid out in C with the kernel's NLMSG_* / RTA_* macros, byte for
 * byte (src/test/c/golden_links.c; gcc + linux-libc-dev). The builder calls below use the
 * parameters golden_links.c printed; the attribute numbers are ours, so a wrong constant shows
 * up as a byte difference.
 */
class NlRequestGoldenBytesTest {

    @Test
    void linkDumpRequestWithExtMaskMatchesCByteForByte() {
        Golden g = GoldenMessages.get("getlink-dump");
        Expect e = g.expect();
        assertSameBytes(g, Rtnl.getLinkDump(e.i("seq")).toBytes());
        e.assertAllChecked();
    }

    @Test
    void addressDumpRequestMatchesCByteForByte() {
        Golden g = GoldenMessages.get("getaddr-dump");
        Expect e = g.expect();
        assertSameBytes(g, Rtnl.getAddrDump(e.i("seq")).toBytes());
        e.assertAllChecked();
    }

    @Test
    void ipv6RouteDumpOfAllTablesMatchesCByteForByte() {
        Golden g = GoldenMessages.get("getroute-dump-v6");
        Expect e = g.expect();
        assertSameBytes(g, Rtnl.getRouteDump(e.i("seq"), e.i("family")).toBytes());
        e.assertAllChecked();
    }

    @Test
    void nsidDumpOfTargetNamespacePadsRtgenmsgBeforeItsAttribute() {
        Golden g = GoldenMessages.get("getnsid-dump-target");
        Expect e = g.expect();
        assertSameBytes(g, Rtnl.getNsidDump(e.i("seq"), OptionalInt.of(e.i("target_nsid"))).toBytes());
        e.assertAllChecked();
    }

    @Test
    void nestedLinkinfoRequestMatchesIproute2LayoutWithNestedFlag() {
        Golden g = GoldenMessages.get("newlink-macvlan");
        Expect e = g.expect();
        byte[] ours = new NlRequest(Rtnl.RTM_NEWLINK, e.i("flags"), e.i("seq"))
                .header(new byte[Rtnl.IFINFOMSG_SIZE])
                .u32(Rtnl.IFLA_LINK, e.i("link"))
                .string(Rtnl.IFLA_IFNAME, e.s("ifname"))
                .beginNest(Rtnl.IFLA_LINKINFO)
                .string(Rtnl.IFLA_INFO_KIND, e.s("kind"))
                .beginNest(Rtnl.IFLA_INFO_DATA)
                .u32(Rtnl.IFLA_MACVLAN_MODE, e.i("mode"))
                .u16(Rtnl.IFLA_MACVLAN_FLAGS, 0)
                .endNest()
                .endNest()
                .toBytes();
        assertSameBytes(g, ours);
        e.assertAllChecked();
    }

    @Test
    void u8AttributesArePaddedToFourBytesLikeRtaAlign() {
        Golden g = GoldenMessages.get("setlink-dormant");
        Expect e = g.expect();
        byte[] ifinfo = new byte[Rtnl.IFINFOMSG_SIZE];
        java.nio.ByteBuffer.wrap(ifinfo).order(java.nio.ByteOrder.nativeOrder()).putInt(4, e.i("ifindex"));
        byte[] ours = new NlRequest(19 /* RTM_SETLINK, <linux/rtnetlink.h> */, NlMessage.NLM_F_REQUEST, e.i("seq"))
                .header(ifinfo)
                .u8(17 /* IFLA_LINKMODE, <linux/if_link.h> */, e.i("linkmode"))
                .u8(Rtnl.IFLA_OPERSTATE, e.i("operstate"))
                .toBytes();
        assertSameBytes(g, ours);
        e.assertAllChecked();
    }

    private static void assertSameBytes(Golden g, byte[] ours) {
        assertThat(HexFormat.of().formatHex(ours)).as(g.name() + ": our bytes vs golden_links.c")
                .isEqualTo(HexFormat.of().formatHex(g.bytes()));
    }
}
