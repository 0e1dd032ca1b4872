package io.cmdemux.gid;

import static io.cmdemux.gid.Topo.macvlan;
import static io.cmdemux.gid.Topo.veth;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.InetAddresses;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stateful table across generations; expectations follow from cache.c's lowest-free-slot rule. */
class SoftRocePortTest {
    private static final SoftPortSpec SPEC = SoftPortSpec.parse("soft0=uplink");

    private static Topo base() {
        Topo t = new Topo();
        t.dev("host", 2, "uplink", "veth", veth(), "52:54:00:12:34:56");
        return t;
    }

    private static void pod(Topo t, String ns, long inode, String ip) {
        t.ns(ns, inode);
        t.child(ns, 5, "net1", "macvlan", macvlan(), "host", 2,
                "02:00:00:00:00:" + ip.substring(ip.lastIndexOf('.') + 1));
        t.addr(ns, 5, ip, 24);
    }

    private static List<String> table(SoftRocePort p) {
        List<String> out = new ArrayList<>();
        for (GidEntry e : p.device().ports().get(0).gids()) {
            out.add(e.index() + " " + e.gid());
        }
        return out;
    }

    @Test
    void aDeletedPodsSlotsGoToTheNextPodLowestFirst() {
        Topo t = base();
        SoftRocePort p = new SoftRocePort(SPEC);
        long g = 1;
        p.update(t.build(g++));
        pod(t, "a", 100, "10.0.0.11");
        p.update(t.build(g++));
        pod(t, "b", 101, "10.0.0.12");
        p.update(t.build(g++));
        pod(t, "c", 102, "10.0.0.13");
        p.update(t.build(g++));
        assertThat(table(p))
                .containsExactly(
                        "0 fe80::5054:ff:fe12:3456", "1 ::ffff:10.0.0.11", "2 ::ffff:10.0.0.12", "3 ::ffff:10.0.0.13");
        LinkRef b = new LinkRef(t.id("b"), 5);
        t.removeNs("b");
        p.update(t.build(g++));
        assertThat(p.lastEvents()).containsExactly(new GidEvent.DelAll(b));
        pod(t, "e", 104, "10.0.0.15");
        p.update(t.build(g++));
        assertThat(table(p))
                .containsExactly(
                        "0 fe80::5054:ff:fe12:3456", "1 ::ffff:10.0.0.11", "2 ::ffff:10.0.0.15", "3 ::ffff:10.0.0.13");
    }

    @Test
    void anAddressEventInOneNamespaceIsOneGidEvent() {
        Topo t = base();
        pod(t, "a", 100, "10.0.0.11");
        pod(t, "b", 101, "10.0.0.12");
        SoftRocePort p = new SoftRocePort(SPEC);
        TopologySnapshot s1 = t.build(1);
        p.update(s1);
        // What a watcher publishes: only pod b's state is new.
        t.addr("b", 5, "10.0.1.12", 24);
        TopologySnapshot s2 = s1.with(2, List.of(t.state("b")), List.of());
        assertThat(p.update(s2))
                .containsExactly(new GidEvent.AddIp(new LinkRef(t.id("b"), 5), InetAddresses.parse("10.0.1.12")));
        assertThat(table(p)).endsWith("3 ::ffff:10.0.1.12");
        t.removeAddr("b", 5, "10.0.1.12");
        TopologySnapshot s3 = s2.with(3, List.of(t.state("b")), List.of());
        assertThat(p.update(s3))
                .containsExactly(new GidEvent.DelIp(new LinkRef(t.id("b"), 5), InetAddresses.parse("10.0.1.12")));
        assertThat(table(p)).hasSize(3);
    }

    @Test
    void incrementalUpdatesEqualAReplayOfTheSameEvents() {
        Topo t = base();
        SoftRocePort p = new SoftRocePort(new SoftPortSpec("soft0", "uplink", null, RoceGidRules.ROCE_V1_V2, 64));
        List<GidEvent> history = new ArrayList<>();
        long g = 1;
        history.addAll(p.update(t.build(g++)));
        for (int i = 0; i < 6; i++) {
            pod(t, "p" + i, 200 + i, "10.2.0." + (10 + i));
            history.addAll(p.update(t.build(g++)));
            if (i % 2 == 1) {
                t.removeNs("p" + (i - 1));
                history.addAll(p.update(t.build(g++)));
            }
        }
        GidCache replayed = RoceGidRules.replay(64, RoceGidRules.ROCE_V1_V2, history);
        assertThat(GidTableDiff.compare(replayed.entries(), p.device().ports().get(0).gids())).isEmpty();
    }

    @Test
    void aHistoryOfTopologiesGivesTheTableOfThatHistoryNotOfAFreshEnumeration() {
        Topo t = base();
        List<TopologySnapshot> history = new ArrayList<>();
        pod(t, "z", 300, "10.0.0.30"); // the highest inode, but the first pod
        history.add(t.build(1));
        pod(t, "a", 100, "10.0.0.11");
        history.add(t.build(2));
        // Kernel: z came first, so it has slot 1 and a slot 2; a fresh enumeration (by inode) would swap them.
        assertThat(SoftRocePort.tableAfter(SPEC, history)).extracting(e -> e.index() + " " + e.gid())
                .containsExactly("0 fe80::5054:ff:fe12:3456", "1 ::ffff:10.0.0.30", "2 ::ffff:10.0.0.11");
        assertThat(RoceGidRules.compute(history.get(1), new LinkRef(history.get(1).host(), 2), SPEC.types(), 1024))
                .extracting(e -> e.index() + " " + e.gid())
                .containsExactly("0 fe80::5054:ff:fe12:3456", "1 ::ffff:10.0.0.11", "2 ::ffff:10.0.0.30");
    }

    @Test
    void aMacChangeRedoesTheDevicesEntries() {
        Topo t = base();
        pod(t, "a", 100, "10.0.0.11");
        SoftRocePort p = new SoftRocePort(SPEC);
        p.update(t.build(1));
        t.child("a", 5, "net1", "macvlan", macvlan(), "host", 2, "02:00:00:00:00:77");
        List<GidEvent> ev = p.update(t.build(2));
        LinkRef mv = new LinkRef(t.id("a"), 5);
        assertThat(ev)
                .containsExactly(new GidEvent.DelAll(mv), new GidEvent.AddIp(mv, InetAddresses.parse("10.0.0.11")));
    }

    @Test
    void aMissingPortNetdevLeavesAnEmptyTableAndSaysWhy() {
        SoftRocePort p = new SoftRocePort(SoftPortSpec.parse("soft0=nosuch0"));
        p.update(base().build(1));
        assertThat(p.device().ports().get(0).gids()).isEmpty();
        assertThat(p.problems()).singleElement().asString().contains("no link nosuch0");
    }

    @Test
    void specSyntax() {
        SoftPortSpec s = SoftPortSpec.parse("mlx=eth1@infra:v1,v2");
        assertThat(s.name()).isEqualTo("mlx");
        assertThat(s.netdev()).isEqualTo("eth1");
        assertThat(s.netns()).isEqualTo("infra");
        assertThat(s.types()).containsExactly(GidType.ROCE_V1, GidType.ROCE_V2);
        assertThat(SoftPortSpec.parse("soft0=uplink").types()).containsExactly(GidType.ROCE_V2);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SoftPortSpec.parse("nonsense"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NAME=NETDEV");
    }
}
