package io.cmdemux.gid;

import static io.cmdemux.gid.Topo.macvlan;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NamespaceDump;
import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two sysfs fixture trees (see their READMEs); expected values are the ones the READMEs state. */
class SysfsReaderTest {
    private static final String IB_GID = "fe:80:00:00:00:00:00:00:b8:59:9f:03:00:a1:b2:c0";

    static Path fixture(String name) {
        try {
            return Path.of(SysfsReaderTest.class.getResource("/sysfs/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** The host and pod links the ib-ipoib README describes, plus ib0.8002 moved into pod p. */
    static Topo ibTopology() {
        Topo t = new Topo().ns("p", 100);
        t.dev("host", 2, "eno1", "device", Topo.generic("device"), "3c:ec:ef:00:00:01");
        t.link("host", 4, "ib0", "ipoib", new LinkInfo.Ipoib(0xffff, 0, 0), null, null, 0, 0, "00:00:10:87:" + IB_GID,
                Link.ARPHRD_INFINIBAND);
        t.link("host", 5, "ib0.8001", "ipoib", new LinkInfo.Ipoib(0x8001, 0, 0), null, "host", 4, 0,
                "00:00:11:07:" + IB_GID, Link.ARPHRD_INFINIBAND);
        t.link("host", 6, "ib0.8005", "ipoib", new LinkInfo.Ipoib(0x8005, 0, 0), null, "host", 4, 0,
                "00:00:11:47:" + IB_GID, Link.ARPHRD_INFINIBAND);
        t.link("p", 3, "ib0.8002", "ipoib", new LinkInfo.Ipoib(0x8002, 0, 0), null, "host", 4, 0,
                "00:00:11:87:" + IB_GID, Link.ARPHRD_INFINIBAND);
        return t;
    }

    /** The pods the roce README describes. */
    static Topo roceTopology() {
        Topo t = new Topo().ns("a", 100).ns("b", 101).ns("c", 102).ns("d", 103);
        t.dev("host", 3, "eth2", "device", Topo.generic("device"), "52:54:00:12:34:56");
        String[] ips = {"10.77.0.10", "10.77.0.11", "10.77.0.12", "10.77.0.12"};
        String[] pods = {"a", "b", "c", "d"};
        for (int i = 0; i < 4; i++) {
            t.child(pods[i], 4, "net1", "macvlan", macvlan(), "host", 3, "02:00:00:00:01:0" + i)
                    .addr(pods[i], 4, ips[i], 24);
        }
        return t;
    }

    @Test
    void ibPortWithIpoibParentAliasGuidAndPkeys() {
        TopologySnapshot s = ibTopology().build(1);
        SysfsReader.Result r = SysfsReader.read(SysfsLayout.live(fixture("ib-ipoib")), s);
        assertThat(r.problems()).isEmpty();
        assertThat(r.topology().netnsMode()).isEqualTo(RdmaTopology.NetnsMode.SHARED);
        RdmaDevice d = r.topology().device("mlx5_0").orElseThrow();
        assertThat(d.nodeGuid()).isEqualTo(0xb8599f0300a1b2c0L);
        RdmaPort p = d.port(1).orElseThrow();
        assertThat(p.linkLayer()).isEqualTo(RdmaPort.LinkLayer.INFINIBAND);
        assertThat(p.state()).isEqualTo("4: ACTIVE");
        assertThat(p.portGuid()).isEqualTo(0xb8599f0300a1b2c0L);
        assertThat(p.aliasGuids()).containsExactly(0xb8599f0300a1b2c8L);
        assertThat(p.gids()).extracting(e -> e.index() + " " + e.gid() + " " + e.type() + " " + e.ndev())
                .containsExactly("0 fe80::b859:9f03:a1:b2c0 IB null", "1 fe80::b859:9f03:a1:b2c8 IB null");
        assertThat(p.pkeys().pkeys()).containsExactly(0xffff, 0x8001, 0x0002, 0x0000);
        assertThat(p.ipoibParents()).containsExactly(new LinkRef(s.host(), 4));
        assertThat(r.netClass())
                .extracting(NetClassEntry::name)
                .containsExactly("ib0", "ib0.8001", "ib0.8005");
        assertThat(r.netClass().get(0).ipoibGid()).isEqualTo(Gid.parse("fe80::b859:9f03:a1:b2c0"));
        assertThat(r.netClass().get(0).ipoibParent()).isTrue();
    }

    @Test
    void ipoibChildWithAPkeyOutsideTheTableIsReportedAndALimitedMemberMatchIsNot() {
        TopologySnapshot s = ibTopology().build(1);
        SysfsReader.Result r = SysfsReader.read(SysfsLayout.live(fixture("ib-ipoib")), s);
        List<GidProblem> problems = GidCheck.run(s, r.topology(), r.problems());
        // 0x8001 is in the table; 0x8002 matches 0x0002 on the low 15 bits; 0x8005 matches nothing.
        assertThat(problems).singleElement().satisfies(p -> {
            assertThat(p.kind()).isEqualTo(GidProblem.Kind.PKEY_NOT_IN_TABLE);
            assertThat(p.message()).contains("ib0.8005").contains("0x8005");
            assertThat(p.fix()).contains("0x0005");
        });
    }

    @Test
    void roceNdevNamesAreTiedToPodsByTheirIpsAndSameNameSameIpStaysUnresolved() {
        Topo t = roceTopology();
        TopologySnapshot s = t.build(1);
        SysfsReader.Result r = SysfsReader.read(SysfsLayout.live(fixture("roce")), s);
        RdmaPort p = r.topology().port("mlx5_1", 1).orElseThrow();
        assertThat(p.netdev()).isEqualTo(new LinkRef(s.host(), 3));
        assertThat(p.gids()).hasSize(10);
        assertThat(p.gids())
                .extracting(e -> e.index() + " " + e.type().text() + " "
                        + (e.ndev() == null ? "?" : e.ndev().netns().inode()) + " " + e.ndevName())
                .containsExactly("0 RoCE v1 " + Topo.HOST_INODE + " eth2", "1 RoCE v2 " + Topo.HOST_INODE + " eth2",
                        "2 RoCE v1 100 net1", "3 RoCE v2 100 net1", "4 RoCE v1 101 net1", "5 RoCE v2 101 net1",
                        "6 RoCE v1 ? net1", "7 RoCE v2 ? net1", "8 RoCE v1 ? net1", "9 RoCE v2 ? net1");
        assertThat(r.problems())
                .hasSize(4)
                .allMatch(m -> m.contains("could be any of") && m.contains("net1@c") && m.contains("net1@d"));
        assertThat(r.topology().netnsMode()).isEqualTo(RdmaTopology.NetnsMode.EXCLUSIVE);
        // Its `device` link names the PCI function: a NIC.
        RdmaDevice d = r.topology().devices().get(0);
        assertThat(d.busDevice()).isEqualTo("0000:81:00.1");
        assertThat(d.hardware()).isTrue();
    }

    @Test
    void roceTableEqualsTheComputedOneAndExclusiveModeIsReported() {
        TopologySnapshot s = roceTopology().build(1);
        SysfsReader.Result r = SysfsReader.read(SysfsLayout.live(fixture("roce")), s);
        RdmaPort p = r.topology().port("mlx5_1", 1).orElseThrow();
        List<GidEntry> computed = RoceGidRules.compute(s, p.netdev(), RoceGidRules.ROCE_V1_V2, 12);
        List<GidTableDiff.Difference> diff = GidTableDiff.compare(computed, p.gids());
        // Only the four entries sysfs cannot tie to c or d differ (they have no ndev).
        assertThat(diff).extracting(GidTableDiff.Difference::index).containsExactly(6, 7, 8, 9);
        List<GidProblem> problems = GidCheck.run(s, r.topology(), List.of());
        assertThat(problems).extracting(GidProblem::kind).containsExactly(GidProblem.Kind.EXCLUSIVE_NETNS_MODE);
        assertThat(problems.get(0).message()).contains("a, b");
    }

    @Test
    void aStaleRealEntryIsATableDifference() {
        Topo t = roceTopology();
        t.removeAddr("b", 4, "10.77.0.11").addr("b", 4, "10.77.0.21", 24);
        TopologySnapshot s = t.build(1);
        SysfsReader.Result r = SysfsReader.read(SysfsLayout.live(fixture("roce")), s);
        List<GidProblem> problems = GidCheck.run(s, r.topology(), List.of());
        assertThat(problems).filteredOn(p -> p.kind() == GidProblem.Kind.TABLE_DIFFERS).singleElement()
                .satisfies(p -> assertThat(p.message()).contains("missing: ::ffff:10.77.0.21"));
    }

    @Test
    void aSnapshotCarriesTheTablesAndReadsBackTheSame(@TempDir Path tmp) throws Exception {
        TopologySnapshot s = roceTopology().build(1);
        for (String f : List.of("roce", "ib-ipoib")) {
            Map<String, byte[]> extra = SysfsCollector.collect(SysfsLayout.live(fixture(f)));
            assertThat(extra).containsKey(SysfsLayout.SNAPSHOT_NETNS_MODE);
            Path zip = tmp.resolve(f + ".zip");
            try (OutputStream out = Files.newOutputStream(zip)) {
                SnapshotFile.write(
                        out, s.host(), List.of(new NamespaceDump(s.host(), List.of(), -1, List.of())), extra);
            }
            SnapshotFile.Contents c = SnapshotFile.read(zip);
            SysfsReader.Result direct = SysfsReader.read(SysfsLayout.live(fixture(f)), s);
            SysfsReader.Result back = SysfsReader.read(SysfsLayout.snapshot(c.root()), s);
            assertThat(back.topology()).isEqualTo(direct.topology());
            assertThat(back.problems()).hasSameSizeAs(direct.problems());
        }
    }
}
