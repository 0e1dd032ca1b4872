package io.cmdemux.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The kinds this machine's kernel cannot create (ipvlan, bond and its slave, vlan), decoded from
 * the kernel's own bytes: the nlmon captures the kernel lab recorded (it/fixtures/lab, issue 10).
 * What each link must be comes from the iproute2 commands in that fixture's README, which made
 * it, not from our decoder.
 */
class LabLinkKindsTest {
    private static final Path LAB = Path.of("..", "it", "fixtures", "lab");

    private static TopologySnapshot load(String fixture) throws Exception {
        Path dir = LAB.resolve(fixture);
        assertThat(Files.isDirectory(dir))
                .as("kernel-lab fixture %s (recorded by scripts/lab/record)", dir.toAbsolutePath())
                .isTrue();
        SnapshotFile.Contents c = SnapshotFile.read(dir);
        return TopologySnapshot.build(1, c.host(), c.dumps());
    }

    private static Link link(TopologySnapshot s, String netns, String name) {
        NetnsState ns = netns.equals("init")
                ? s.hostState()
                : s.findNamespace(netns).orElseThrow(() -> new AssertionError("no namespace " + netns));
        Link l = ns.linkByName(name);
        assertThat(l).as("%s in %s", name, netns).isNotNull();
        return l;
    }

    /** `ip link add i1 link vA type ipvlan mode l2` (resp. l3), then moved into pod1. */
    @Test
    void ipvlanModesFromTheKernelsDump() throws Exception {
        for (String mode : new String[] {"l2", "l3"}) {
            TopologySnapshot s = load("rxe-limits/ipvlan-" + mode + "-pod");
            Link i1 = link(s, "pod1", "i1");
            assertThat(i1.kind()).isEqualTo("ipvlan");
            LinkInfo.Ipvlan iv = (LinkInfo.Ipvlan) i1.info();
            assertThat(iv.mode()).isEqualTo(mode.equals("l2") ? LinkInfo.Ipvlan.MODE_L2 : LinkInfo.Ipvlan.MODE_L3);
            assertThat(iv.flags()).as("no private/vepa flag was asked for").isZero();
            // its lower device is vA in init, named through IFLA_LINK (and IFLA_LINK_NETNSID)
            assertThat(i1.parentIfindex()).isEqualTo(link(s, "init", "vA").ifindex());
        }
    }

    /** `ip link add bond0 type bond mode active-backup miimon 100; ip link set vA master bond0`. */
    @Test
    void bondAndItsSlaveFromTheKernelsDump() throws Exception {
        TopologySnapshot s = load("bond-rxe-on-bond");
        Link bond = link(s, "init", "bond0");
        Link va = link(s, "init", "vA");
        assertThat(bond.kind()).isEqualTo("bond");
        LinkInfo.Bond b = (LinkInfo.Bond) bond.info();
        assertThat(b.mode()).isEqualTo(LinkInfo.Bond.MODE_ACTIVEBACKUP);
        assertThat(b.activeSlave()).as("the only slave is the active one").isEqualTo(va.ifindex());
        assertThat(va.masterIfindex()).isEqualTo(bond.ifindex());
        assertThat(va.slaveInfo()).isInstanceOf(LinkInfo.BondSlave.class);
        LinkInfo.BondSlave sl = (LinkInfo.BondSlave) va.slaveInfo();
        assertThat(sl.state()).isEqualTo(LinkInfo.BondSlave.STATE_ACTIVE);
        // a bond slave's permanent address is the MAC it had before enslaving; the bond took that MAC
        assertThat(sl.permHwaddr()).isEqualTo(bond.mac());
    }

    /** `ip link add link vA name vA.100 type vlan id 100` (802.1Q is iproute2's default protocol). */
    @Test
    void vlanFromTheKernelsDump() throws Exception {
        TopologySnapshot s = load("vlan-in-init");
        Link vlan = link(s, "init", "vA.100");
        assertThat(vlan.kind()).isEqualTo("vlan");
        LinkInfo.Vlan v = (LinkInfo.Vlan) vlan.info();
        assertThat(v.id()).isEqualTo(100);
        assertThat(v.protocol()).isEqualTo(0x8100);
        assertThat(vlan.parentIfindex()).isEqualTo(link(s, "init", "vA").ifindex());
    }
}
