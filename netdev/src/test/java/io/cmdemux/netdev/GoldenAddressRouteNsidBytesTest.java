package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.netdev.GoldenMessages.Expect;
import io.cmdemux.netdev.GoldenMessages.Golden;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * RTM_NEWADDR, RTM_NEWROUTE, RTM_NEWNSID and NLMSG_ERROR as the kernel lays them out, from
 * src/test/c/golden_links.c (gcc + linux-libc-dev). Address text is compared with what the C
 * side's inet_ntop printed, the same function iproute2 prints addresses with.
 */
class GoldenAddressRouteNsidBytesTest {

    @Test
    void ipv4AndIpv6AddressesDecodeLocalPeerPrefixScopeFlagsAndLabel() throws Exception {
        List<Golden> all = GoldenMessages.ofKind("addr");
        assertThat(all).extracting(Golden::name).contains("addr-v4-label", "addr-v4-peer", "addr-v6-global",
                "addr-v6-link", "addr-v6-v4mapped", "addr-v6-peer");
        for (Golden g : all) {
            Expect e = g.expect();
            Address a = Rtnl.decodeAddress(NlMessage.of(g.bytes()));
            assertThat(a).as(g.name()).isNotNull();
            assertThat(a.family()).as(g.name()).isEqualTo(e.i("family"));
            assertThat(a.ifindex()).as(g.name()).isEqualTo(e.i("ifindex"));
            assertThat(InetAddresses.toText(a.address())).as(g.name()).isEqualTo(e.s("address"));
            assertFamilyOfAddress(g.name(), a.address(), a.family());
            assertThat(a.prefixLen()).as(g.name()).isEqualTo(e.i("prefixlen"));
            assertThat(a.scope()).as(g.name()).isEqualTo(e.i("scope"));
            assertThat(a.flags()).as(g.name()).isEqualTo(e.i("flags"));
            assertThat(a.label()).as(g.name()).isEqualTo(e.absent("label") ? null : e.s("label"));
            if (e.absent("peer")) {
                assertThat(a.peer()).as(g.name()).isNull();
            } else {
                assertThat(InetAddresses.toText(a.peer())).as(g.name()).isEqualTo(e.s("peer"));
            }
            e.assertAllChecked();
        }
    }

    @Test
    void v4MappedIpv6AddressStaysAnIpv6AddressLikeInetNtopPrintsIt() throws Exception {
        Golden g = GoldenMessages.get("addr-v6-v4mapped");
        Address a = Rtnl.decodeAddress(NlMessage.of(g.bytes()));
        // InetAddress.getByAddress turns ::ffff:a.b.c.d into an Inet4Address; the kernel and
        // iproute2 keep it an IPv6 address, and so must we.
        assertThat(a.address()).isInstanceOf(Inet6Address.class);
        assertThat(a.ipv4()).isFalse();
        assertThat(a.cidr()).isEqualTo(g.expect().s("address") + "/" + g.expect().s("prefixlen"));
    }

    @Test
    void routesDecodeTableBeyond255MultipathWeightsAndSingleHopGateways() throws Exception {
        List<Golden> all = GoldenMessages.ofKind("route");
        assertThat(all)
                .extracting(Golden::name)
                .contains("route-v4-multipath-table1000", "route-v6-multipath", "route-v4-default");
        for (Golden g : all) {
            Expect e = g.expect();
            Route r = Rtnl.decodeRoute(NlMessage.of(g.bytes()));
            assertThat(r).as(g.name()).isNotNull();
            assertThat(r.family()).as(g.name()).isEqualTo(e.i("family"));
            assertThat(r.table()).as(g.name()).isEqualTo(e.i("table"));
            assertThat(r.type()).as(g.name()).isEqualTo(e.i("type"));
            assertThat(r.protocol()).as(g.name()).isEqualTo(e.i("protocol"));
            assertThat(r.scope()).as(g.name()).isEqualTo(e.i("scope"));
            assertThat(r.tos()).as(g.name()).isEqualTo(e.i("tos"));
            assertThat(text(r.dst())).as(g.name()).isEqualTo(e.s("dst"));
            assertThat(r.dstLen()).as(g.name()).isEqualTo(e.i("dst_len"));
            assertThat(r.oif()).as(g.name()).isEqualTo(e.i("oif"));
            assertThat(text(r.gateway())).as(g.name()).isEqualTo(e.s("gateway"));
            assertThat(text(r.prefsrc())).as(g.name()).isEqualTo(e.s("prefsrc"));
            assertThat(r.priority()).as(g.name()).isEqualTo(e.i("priority"));
            List<String> hops = new ArrayList<>();
            for (Route.Nexthop h : r.nexthops()) {
                hops.add(h.ifindex() + "/" + text(h.gateway()) + "/" + h.weight());
                assertFamilyOfAddress(g.name(), h.gateway(), r.family());
            }
            assertThat(hops.isEmpty() ? "-" : String.join(",", hops)).as(g.name()).isEqualTo(e.s("nexthops"));
            e.assertAllChecked();
        }
    }

    @Test
    void nsidRecordsDecodeNsidAndOptionalCurrentNsid() throws Exception {
        List<Golden> all = GoldenMessages.ofKind("nsid");
        assertThat(all).hasSize(2);
        for (Golden g : all) {
            Expect e = g.expect();
            NsidEntry n = Rtnl.decodeNsid(NlMessage.of(g.bytes()));
            assertThat(n.nsid()).as(g.name()).isEqualTo(e.i("nsid"));
            assertThat(n.currentNsid()).as(g.name())
                    .isEqualTo(e.absent("current_nsid") ? OptionalInt.empty() : OptionalInt.of(e.i("current_nsid")));
            e.assertAllChecked();
        }
    }

    @Test
    void errorsGiveErrnoAndExtendedAckTextCappedOrNot() throws Exception {
        List<Golden> all = GoldenMessages.ofKind("error");
        assertThat(all)
                .extracting(Golden::name)
                .containsExactlyInAnyOrder("error-capped-extack", "error-full-extack", "ack");
        for (Golden g : all) {
            Expect e = g.expect();
            NlMessage m = NlMessage.of(g.bytes());
            assertThat(m.type()).isEqualTo(NlMessage.NLMSG_ERROR);
            assertThat(m.error()).as(g.name()).isEqualTo(e.i("error"));
            assertThat(m.extAckMessage()).as(g.name()).isEqualTo(e.absent("message") ? null : e.s("message"));
            e.assertAllChecked();
        }
    }

    private static void assertFamilyOfAddress(String name, InetAddress a, int family) {
        if (a == null) {
            return;
        }
        assertThat(a).as(name + ": address class follows the message family")
                .isInstanceOf(family == Rtnl.AF_INET ? Inet4Address.class : Inet6Address.class);
    }

    private static String text(InetAddress a) {
        return a == null ? "-" : InetAddresses.toText(a);
    }
}
