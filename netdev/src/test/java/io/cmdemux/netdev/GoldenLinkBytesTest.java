package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.netdev.GoldenMessages.Expect;
import io.cmdemux.netdev.GoldenMessages.Golden;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * RTM_NEWLINK for the kinds this kernel cannot create (ipvlan, bond, bond slave, vlan, IPoIB), plus
 * a cross-namespace macvlan, alternative names and an unknown kind. The bytes and the expected
 * values both come from src/test/c/golden_links.c, built with gcc against the kernel's uapi
 * headers (package linux-libc-dev); needs gcc, and fails without it.
 */
class GoldenLinkBytesTest {
    /** Every link message golden_links.c emits has a test below; this list keeps that honest. */
    private static final List<String> CHECKED = List.of(
            "ipvlan-l2-vepa", "ipvlan-l3-bridge", "ipvlan-l3s-private",
            "bond-active-backup", "bond-balance-rr",
            "bond-slave-active", "bond-slave-backup", "bond-slave-veth",
            "vlan-8021q", "vlan-8021ad",
            "ipoib-parent", "ipoib-child",
            "macvlan-in-pod", "macvlan-in-pod-same-ifindex", "altnames", "wireguard");

    @Test
    void everyGoldenLinkMessageHasATest() {
        Set<String> emitted =
                GoldenMessages.ofKind("link").stream().map(Golden::name).collect(Collectors.toCollection(TreeSet::new));
        assertThat(emitted).containsExactlyInAnyOrderElementsOf(CHECKED);
    }

    @Test
    void ipvlanL2ModeAndVepaFlagDecodeFromKernelLayout() throws Exception {
        checkIpvlan("ipvlan-l2-vepa");
    }

    @Test
    void ipvlanL3ModeAndBridgeFlagDecodeFromKernelLayout() throws Exception {
        checkIpvlan("ipvlan-l3-bridge");
    }

    @Test
    void ipvlanL3sModeAndPrivateFlagDecodeFromKernelLayout() throws Exception {
        checkIpvlan("ipvlan-l3s-private");
    }

    private static void checkIpvlan(String name) throws Exception {
        Golden g = GoldenMessages.get(name);
        Expect e = g.expect();
        Link l = decode(g);
        assertCommon(l, e);
        assertThat(l.info()).isInstanceOf(LinkInfo.Ipvlan.class);
        LinkInfo.Ipvlan ip = (LinkInfo.Ipvlan) l.info();
        assertThat(ip.mode()).isEqualTo(e.i("ipvlan.mode"));
        assertThat(ip.modeName()).isEqualTo(e.s("ipvlan.mode_name"));
        assertThat(ip.flags()).isEqualTo(e.i("ipvlan.flags"));
        assertThat(ip.flagsName()).isEqualTo(e.s("ipvlan.flags_name"));
        assertNoSlave(l, e);
        e.assertAllChecked();
    }

    @Test
    void activeBackupBondReportsItsActiveSlaveIfindex() throws Exception {
        Link l = checkBond("bond-active-backup");
        assertThat(((LinkInfo.Bond) l.info()).activeSlave()).isNotZero();
    }

    @Test
    void balanceRrBondWithoutActiveSlaveAttributeReportsNone() throws Exception {
        Link l = checkBond("bond-balance-rr");
        assertThat(((LinkInfo.Bond) l.info()).activeSlave()).isZero();
    }

    private static Link checkBond(String name) throws Exception {
        Golden g = GoldenMessages.get(name);
        Expect e = g.expect();
        Link l = decode(g);
        assertCommon(l, e);
        assertThat(l.info()).isInstanceOf(LinkInfo.Bond.class);
        LinkInfo.Bond b = (LinkInfo.Bond) l.info();
        assertThat(b.mode()).isEqualTo(e.i("bond.mode"));
        assertThat(b.modeName()).isEqualTo(e.s("bond.mode_name"));
        assertThat(b.activeSlave()).isEqualTo(e.i("bond.active_slave"));
        assertNoSlave(l, e);
        e.assertAllChecked();
        return l;
    }

    @Test
    void activeBondSlaveWithoutKindOfItsOwnDecodesSlaveDataAndMaster() throws Exception {
        Link l = checkBondSlave("bond-slave-active");
        assertThat(((LinkInfo.BondSlave) l.slaveInfo()).active()).isTrue();
        assertThat(l.info()).isEqualTo(new LinkInfo.Generic("device"));
    }

    @Test
    void backupBondSlaveReportsStateLinkFailuresAndQueueId() throws Exception {
        Link l = checkBondSlave("bond-slave-backup");
        assertThat(((LinkInfo.BondSlave) l.slaveInfo()).active()).isFalse();
    }

    @Test
    void vethEnslavedToBondKeepsBothItsKindAndItsSlaveData() throws Exception {
        Link l = checkBondSlave("bond-slave-veth");
        assertThat(l.info()).isInstanceOf(LinkInfo.Veth.class);
        // IFLA_BOND_SLAVE_LINK_FAILURE_COUNT is a u32; 0xfffffffe must survive as those 32 bits.
        assertThat(Integer.toUnsignedLong(((LinkInfo.BondSlave) l.slaveInfo()).linkFailureCount()))
                .isEqualTo(0xfffffffeL);
    }

    private static Link checkBondSlave(String name) throws Exception {
        Golden g = GoldenMessages.get(name);
        Expect e = g.expect();
        Link l = decode(g);
        assertCommon(l, e);
        assertThat(l.masterIfindex()).isNotZero();
        assertThat(l.slaveInfo()).isInstanceOf(LinkInfo.BondSlave.class);
        LinkInfo.BondSlave s = (LinkInfo.BondSlave) l.slaveInfo();
        assertThat(s.state()).isEqualTo(e.i("slave.state"));
        assertThat(s.stateName()).isEqualTo(e.s("slave.state_name"));
        assertThat(s.miiStatus()).isEqualTo(e.i("slave.mii_status"));
        assertThat(s.linkFailureCount()).isEqualTo(e.i("slave.link_failure_count"));
        assertThat(s.queueId()).isEqualTo(e.i("slave.queue_id"));
        assertThat(s.permHwaddr()).isEqualTo(HwAddr.parse(e.s("slave.perm_hwaddr")));
        e.assertAllChecked();
        return l;
    }

    @Test
    void vlan8021qIdProtocolAndFlagsDecodeFromKernelLayout() throws Exception {
        Link l = checkVlan("vlan-8021q");
        assertThat(((LinkInfo.Vlan) l.info()).protocol()).isEqualTo(0x8100);
    }

    @Test
    void vlan8021adProtocolIsReadBigEndianLikeTheKernelWritesIt() throws Exception {
        Link l = checkVlan("vlan-8021ad");
        assertThat(((LinkInfo.Vlan) l.info()).protocol()).isEqualTo(0x88a8);
    }

    private static Link checkVlan(String name) throws Exception {
        Golden g = GoldenMessages.get(name);
        Expect e = g.expect();
        Link l = decode(g);
        assertCommon(l, e);
        assertThat(l.info()).isInstanceOf(LinkInfo.Vlan.class);
        LinkInfo.Vlan v = (LinkInfo.Vlan) l.info();
        assertThat(v.id()).isEqualTo(e.i("vlan.id"));
        assertThat(v.protocol()).isEqualTo(e.i("vlan.protocol"));
        assertThat(v.protocolName()).isEqualTo(e.s("vlan.protocol_name"));
        assertThat(v.flags()).isEqualTo(e.i("vlan.flags"));
        assertNoSlave(l, e);
        e.assertAllChecked();
        return l;
    }

    @Test
    void ipoibParentHasDefaultPkeyDatagramModeUmcastAndTwentyByteAddress() throws Exception {
        Link l = checkIpoib("ipoib-parent");
        assertThat(l.hasParent()).isFalse();
    }

    @Test
    void ipoibChildNamesItsParentAndCarriesItsPkeyAndConnectedMode() throws Exception {
        Link l = checkIpoib("ipoib-child");
        assertThat(l.hasParent()).isTrue();
    }

    private static Link checkIpoib(String name) throws Exception {
        Golden g = GoldenMessages.get(name);
        Expect e = g.expect();
        Link l = decode(g);
        assertCommon(l, e);
        assertThat(l.arphrdType()).isEqualTo(Link.ARPHRD_INFINIBAND);
        assertThat(l.mac().length()).isEqualTo(20);
        assertThat(l.info()).isInstanceOf(LinkInfo.Ipoib.class);
        LinkInfo.Ipoib ib = (LinkInfo.Ipoib) l.info();
        assertThat(ib.pkey()).isEqualTo(e.i("ipoib.pkey"));
        assertThat(ib.mode()).isEqualTo(e.i("ipoib.mode"));
        assertThat(ib.modeName()).isEqualTo(e.s("ipoib.mode_name"));
        assertThat(ib.umcast()).isEqualTo(e.i("ipoib.umcast"));
        assertNoSlave(l, e);
        e.assertAllChecked();
        return l;
    }

    @Test
    void macvlanInPodKeepsParentIfindexAndLinkNetnsid() throws Exception {
        checkMacvlanInPod("macvlan-in-pod");
    }

    @Test
    void macvlanInPodWhoseParentHasTheSameIfindexStillHasThatParent() throws Exception {
        Link l = checkMacvlanInPod("macvlan-in-pod-same-ifindex");
        assertThat(l.parentIfindex()).isEqualTo(l.ifindex());
        assertThat(l.hasParent()).isTrue();
    }

    private static Link checkMacvlanInPod(String name) throws Exception {
        Golden g = GoldenMessages.get(name);
        Expect e = g.expect();
        Link l = decode(g);
        assertCommon(l, e);
        assertThat(l.parentNsid()).isPresent();
        assertThat(l.info()).isInstanceOf(LinkInfo.Macvlan.class);
        LinkInfo.Macvlan m = (LinkInfo.Macvlan) l.info();
        assertThat(m.mode()).isEqualTo(e.i("macvlan.mode"));
        assertThat(m.modeName()).isEqualTo(e.s("macvlan.mode_name"));
        assertThat(m.flags()).isEqualTo(e.i("macvlan.flags"));
        assertNoSlave(l, e);
        e.assertAllChecked();
        return l;
    }

    @Test
    void twoAltIfnamesInsideNestedPropListDecodeInOrder() throws Exception {
        Golden g = GoldenMessages.get("altnames");
        Expect e = g.expect();
        Link l = decode(g);
        assertCommon(l, e);
        assertThat(l.altNames()).hasSize(2);
        assertThat(l.info()).isEqualTo(new LinkInfo.Generic("device"));
        assertNoSlave(l, e);
        e.assertAllChecked();
    }

    @Test
    void unknownKindWireguardBecomesGenericNotAnError() throws Exception {
        Golden g = GoldenMessages.get("wireguard");
        Expect e = g.expect();
        Link l = decode(g);
        assertCommon(l, e);
        assertThat(l.info()).isEqualTo(new LinkInfo.Generic("wireguard"));
        assertThat(l.mac()).isNull();
        assertNoSlave(l, e);
        e.assertAllChecked();
    }

    private static Link decode(Golden g) throws MalformedException {
        NlMessage m = NlMessage.of(g.bytes());
        assertThat(m.type()).isEqualTo(Rtnl.RTM_NEWLINK);
        return Rtnl.decodeLink(m);
    }

    /** The attributes every link has, against the values golden_links.c wrote. */
    private static void assertCommon(Link l, Expect e) {
        assertThat(l.ifindex()).as("ifindex").isEqualTo(e.i("ifindex"));
        assertThat(l.name()).as("name").isEqualTo(e.s("ifname"));
        assertThat(l.arphrdType()).as("arphrd").isEqualTo(e.i("arphrd"));
        assertThat(l.flags()).as("flags").isEqualTo(e.i("flags"));
        assertThat(l.operstate()).as("operstate").isEqualTo(e.i("operstate"));
        assertThat(l.mtu()).as("mtu").isEqualTo(e.i("mtu"));
        assertThat(l.parentIfindex()).as("parent").isEqualTo(e.i("link"));
        assertThat(l.parentNsid()).as("parent nsid")
                .isEqualTo(e.absent("link_netnsid") ? OptionalInt.empty() : OptionalInt.of(e.i("link_netnsid")));
        assertThat(l.masterIfindex()).as("master").isEqualTo(e.i("master"));
        if (e.absent("address")) {
            assertThat(l.mac()).as("mac").isNull();
        } else {
            assertThat(l.mac()).as("mac").isEqualTo(HwAddr.parse(e.s("address")));
            assertThat(l.mac().toString()).as("mac text").isEqualTo(e.s("address"));
        }
        List<String> alt = e.absent("altnames") ? List.of() : Arrays.asList(e.s("altnames").split(","));
        assertThat(l.altNames()).as("altnames").containsExactlyElementsOf(alt);
        assertThat(l.kind()).as("kind").isEqualTo(e.s("kind"));
    }

    private static void assertNoSlave(Link l, Expect e) {
        assertThat(e.absent("slave")).as("golden says this link is no bond slave").isTrue();
        assertThat(l.slaveInfo()).as("slave info").isNull();
    }
}
