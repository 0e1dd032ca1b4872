package io.cmdemux.gid;

import static io.cmdemux.gid.Topo.generic;
import static io.cmdemux.gid.Topo.macvlan;
import static io.cmdemux.gid.Topo.veth;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** roce_gid_mgmt.c's rules on hand-built topologies; every expected table is worked out from the rules in the test. */
class RoceGidRulesTest {
    private static final String UPLINK_MAC = "52:54:00:12:34:56";

    @Test
    void defaultGidIsFe80PlusModifiedEui64OfTheMac() {
        // RFC 4291 appendix A: flip the U/L bit of the first byte, put ff:fe in the middle.
        assertThat(RoceGidRules.defaultGid(HwAddr.parse(UPLINK_MAC))).isEqualTo(Gid.parse("fe80::5054:ff:fe12:3456"));
        assertThat(RoceGidRules.defaultGid(HwAddr.parse("02:00:00:00:00:01"))).isEqualTo(Gid.parse("fe80::ff:fe00:1"));
    }

    /** Host uplink (2) with macvlans in pods a, b, c and a veth-only pod d. */
    private static Topo pods() {
        Topo t = new Topo().ns("a", 100).ns("b", 101).ns("c", 102).ns("d", 103);
        t.dev("host", 2, "uplink", "veth", veth(), UPLINK_MAC);
        t.child("a", 5, "net1", "macvlan", macvlan(), "host", 2, "02:00:00:00:00:0a").addr("a", 5, "10.77.0.10", 24);
        t.child("b", 5, "net1", "macvlan", macvlan(), "host", 2, "02:00:00:00:00:0b").addr("b", 5, "10.77.0.11", 24);
        t.child("c", 7, "net1", "macvlan", macvlan(), "host", 2, "02:00:00:00:00:0c").addr("c", 7, "10.77.0.12", 24)
                .addr("c", 7, "fe80::ff:fe00:c", 64);
        t.dev("host", 9, "vpeer", "veth", veth(), "02:00:00:00:00:99");
        t.child("d", 3, "eth0", "veth", veth(), "host", 9, "02:00:00:00:00:0d").addr("d", 3, "10.88.0.2", 24);
        return t;
    }

    @Test
    void macvlansInPodsGetOneEntryPerIpWithTheMacvlanAsNdevAndTheVethPodGetsNone() {
        Topo t = pods();
        TopologySnapshot s = t.build(1);
        LinkRef uplink = new LinkRef(s.host(), 2);
        List<GidEntry> table = RoceGidRules.compute(s, uplink, RoceGidRules.ROCE_V2_ONLY, 1024);
        // rescan order: host first, then namespaces by inode (a, b, c); IPv4 before IPv6.
        assertThat(table)
                .extracting(e -> e.index() + " " + e.gid() + " " + e.ndevName() + "@"
                        + e.ndev().netns().inode())
                .containsExactly(
                        "0 fe80::5054:ff:fe12:3456 uplink@" + Topo.HOST_INODE,
                        "1 ::ffff:10.77.0.10 net1@100",
                        "2 ::ffff:10.77.0.11 net1@101",
                        "3 ::ffff:10.77.0.12 net1@102",
                        "4 fe80::ff:fe00:c net1@102");
        assertThat(table).noneMatch(e -> e.ndev().netns().equals(t.id("d")));
    }

    @Test
    void aBridgeAboveThePortIsAnUpperButItsVethPortsAreNot() {
        Topo t = new Topo().ns("p", 100);
        t.link("host", 2, "uplink", "device", generic("device"), null, null, 0, 4, UPLINK_MAC, Link.ARPHRD_ETHER);
        t.dev("host", 4, "br0", "bridge", new LinkInfo.Bridge(), UPLINK_MAC).addr("host", 4, "192.168.5.1", 24);
        t.link("host", 6, "vh", "veth", veth(), null, "p", 3, 4, "02:00:00:00:00:06", Link.ARPHRD_ETHER);
        t.child("p", 3, "eth0", "veth", veth(), "host", 6, "02:00:00:00:00:03").addr("p", 3, "192.168.5.2", 24);
        TopologySnapshot s = t.build(1);
        List<GidEntry> table = RoceGidRules.compute(s, new LinkRef(s.host(), 2), RoceGidRules.ROCE_V2_ONLY, 1024);
        assertThat(table).extracting(e -> e.gid() + " " + e.ndevName()).containsExactly(
                "fe80::5054:ff:fe12:3456 uplink", "::ffff:192.168.5.1 br0");
    }

    @Test
    void aVlanOnABondCountsOnlyOnTheActiveSlavesPortButAMacvlanOnTheBondCountsOnBoth() {
        Topo t = new Topo();
        LinkInfo.BondSlave slave = new LinkInfo.BondSlave(LinkInfo.BondSlave.STATE_ACTIVE, 0, 0, null, 0);
        t.link("host", 2, "eth0", "device", generic("device"), slave, null, 0, 4, "52:54:00:00:00:02",
                Link.ARPHRD_ETHER);
        t.link("host", 3, "eth1", "device", generic("device"), slave, null, 0, 4, "52:54:00:00:00:03",
                Link.ARPHRD_ETHER);
        t.dev("host", 4, "bond0", "bond", new LinkInfo.Bond(LinkInfo.Bond.MODE_ACTIVEBACKUP, 2), "52:54:00:00:00:02")
                .addr("host", 4, "10.1.0.1", 24);
        t.child("host", 5, "bond0.7", "vlan", new LinkInfo.Vlan(7, 0x8100, 0), "host", 4, "52:54:00:00:00:02")
                .addr("host", 5, "10.7.0.1", 24);
        t.child("host", 6, "mv0", "macvlan", macvlan(), "host", 4, "02:00:00:00:00:06").addr("host", 6, "10.6.0.1", 24);
        TopologySnapshot s = t.build(1);
        // eth0 is the active slave: the bond, its vlan and the macvlan; default GIDs from the bond's MAC.
        assertThat(RoceGidRules.compute(s, new LinkRef(s.host(), 2), RoceGidRules.ROCE_V2_ONLY, 64))
                .extracting(e -> e.index() + " " + e.gid() + " " + e.ndevName() + " " + e.vlanId())
                .containsExactly("0 fe80::5054:ff:fe00:2 bond0 OptionalInt.empty",
                        "1 ::ffff:10.1.0.1 bond0 OptionalInt.empty",
                        "2 ::ffff:10.7.0.1 bond0.7 OptionalInt[7]",
                        "3 ::ffff:10.6.0.1 mv0 OptionalInt.empty");
        // eth1 is inactive: is_eth_port_of_netdev_filter drops the bond and the vlan (real dev = bond),
        // not the macvlan (not a vlan, so its real dev is itself, which is no bond).
        assertThat(RoceGidRules.compute(s, new LinkRef(s.host(), 3), RoceGidRules.ROCE_V2_ONLY, 64))
                .extracting(e -> e.gid() + " " + e.ndevName())
                .containsExactly("fe80::5054:ff:fe00:2 bond0", "::ffff:10.6.0.1 mv0");
    }

    @Test
    void pointToPointIpv4UsesThePeerAddressAsTheKernelsIfaAddressIs() {
        Topo t = new Topo();
        t.dev("host", 2, "uplink", "veth", veth(), UPLINK_MAC).peerAddr("host", 2, "10.9.0.1", "10.9.0.2");
        TopologySnapshot s = t.build(1);
        assertThat(RoceGidRules.compute(s, new LinkRef(s.host(), 2), RoceGidRules.ROCE_V2_ONLY, 8))
                .extracting(e -> e.gid().toString()).contains("::ffff:10.9.0.2").doesNotContain("::ffff:10.9.0.1");
    }

    @Test
    void aMacvlanOnAMacvlanIsAnUpperAtDepthTwo() {
        Topo t = new Topo().ns("a", 100);
        t.dev("host", 2, "uplink", "veth", veth(), UPLINK_MAC);
        t.child("host", 3, "mv0", "macvlan", macvlan(), "host", 2, "02:00:00:00:00:03");
        t.child("a", 4, "net1", "macvlan", macvlan(), "host", 3, "02:00:00:00:00:04").addr("a", 4, "10.3.0.4", 24);
        TopologySnapshot s = t.build(1);
        assertThat(RoceGidRules.eligibleNetdevs(s, new LinkRef(s.host(), 2), true))
                .containsExactly(new LinkRef(s.host(), 2), new LinkRef(s.host(), 3), new LinkRef(t.id("a"), 4));
    }

    @Test
    void theNotifierPathIgnoresNonEthernetDevicesButTheRescanDoesNot() {
        Topo t = new Topo();
        t.dev("host", 2, "uplink", "veth", veth(), UPLINK_MAC);
        t.link("host", 3, "odd0", "macvlan", macvlan(), null, "host", 2, 0, "02:00:00:00:00:03", 65534);
        TopologySnapshot s = t.build(1);
        LinkRef port = new LinkRef(s.host(), 2);
        assertThat(RoceGidRules.eligibleNetdevs(s, port, true)).containsExactly(port);
        assertThat(RoceGidRules.eligibleNetdevs(s, port, false)).containsExactly(port, new LinkRef(s.host(), 3));
    }

    @Test
    void ipv6LinkLocalOfAMacvlanIsItsOwnEntry() {
        Topo t = new Topo().ns("a", 100);
        t.dev("host", 2, "uplink", "veth", veth(), UPLINK_MAC).addr("host", 2, "fe80::5054:ff:fe12:3456", 64);
        t.child("a", 4, "net1", "macvlan", macvlan(), "host", 2, "02:00:00:00:00:04")
                .addr("a", 4, "fe80::ff:fe00:4", 64);
        TopologySnapshot s = t.build(1);
        // The uplink's own link-local is its default GID: one entry, not two.
        assertThat(RoceGidRules.compute(s, new LinkRef(s.host(), 2), RoceGidRules.ROCE_V2_ONLY, 8))
                .extracting(e -> e.index() + " " + e.gid() + " " + e.ndevName())
                .containsExactly("0 fe80::5054:ff:fe12:3456 uplink", "1 fe80::ff:fe00:4 net1");
        assertThat(InetAddresses.parse("fe80::ff:fe00:4")).isNotNull();
    }
}
