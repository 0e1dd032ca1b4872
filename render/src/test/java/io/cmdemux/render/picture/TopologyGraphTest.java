package io.cmdemux.render.picture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The graph of a host built from kernel dump messages: what is drawn, and what the filters leave out. */
class TopologyGraphTest {
    private final Pods pods = Pods.named(4);
    private final TopologySnapshot topo = pods.topology();
    private final RdmaTopology rdma = Pods.rdma(topo);

    private Graph all() {
        return TopologyGraph.build(topo, rdma, Focus.ALL.select(topo, rdma));
    }

    private static Graph.Edge edge(Graph g, String from, String to, String cssClass) {
        return g.edges().stream().filter(e -> e.from.equals(from) && e.to.equals(to)
                && e.classes.contains(cssClass)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + cssClass + " edge " + from + " -> " + to));
    }

    @Test
    void everyNamespaceHasAClusterAndANodeAndEveryLinkANodeInIt() {
        Graph g = all();
        List<NetnsId> nss = List.of(pods.b.host(), pods.pods.get(0), pods.pods.get(1), pods.pods.get(2),
                pods.pods.get(3));
        for (NetnsId ns : nss) {
            assertThat(g.clusters()).anyMatch(c -> c.id.equals("cluster_" + ns.inode()));
            assertThat(g.node("ns_" + ns.inode()).cluster).isEqualTo("cluster_" + ns.inode());
        }
        for (int ifindex : List.of(1, Pods.UP, Pods.BOND, Pods.BOND_ACTIVE, Pods.BOND_BACKUP)) {
            assertThat(g.node("link_" + pods.b.host().inode() + "_" + ifindex))
                    .as("host ifindex %d", ifindex).isNotNull();
        }
        for (int i = 0; i < 4; i++) {
            Graph.Node net1 = g.node("link_" + pods.pods.get(i).inode() + "_2");
            assertThat(net1.cluster).isEqualTo("cluster_" + pods.pods.get(i).inode());
            assertThat(net1.label).contains("net1 #2", "macvlan bridge", Pods.ip(i) + "/16");
        }
        assertThat(g.nodes().stream().filter(n -> n.kind == Graph.Kind.LINK)).hasSize(5 + 4 * 2);
    }

    @Test
    void aMacvlanInAPodHangsFromItsParentInTheHostAcrossTheNamespaceBoundary() {
        Graph g = all();
        Graph.Edge e = edge(g, "link_" + pods.b.host().inode() + "_2",
                "link_" + pods.pods.get(2).inode() + "_2", "parent");
        assertThat(e.classes).contains("cross-netns");
    }

    @Test
    void theBondPointsAtBothSlavesAndMarksTheActiveOne() {
        Graph g = all();
        String bond = "link_" + pods.b.host().inode() + "_" + Pods.BOND;
        Graph.Edge active = edge(g, bond, "link_" + pods.b.host().inode() + "_" + Pods.BOND_ACTIVE, "master");
        Graph.Edge backup = edge(g, bond, "link_" + pods.b.host().inode() + "_" + Pods.BOND_BACKUP, "master");
        assertThat(active.classes).contains("active-slave");
        assertThat(active.label).containsExactly("active");
        assertThat(backup.classes).doesNotContain("active-slave");
        assertThat(backup.label).containsExactly("backup");
    }

    @Test
    void theRdmaPortIsLinkedToItsNetdevAndToEveryGidOwnerWithTheIndices() {
        Graph g = all();
        assertThat(g.node("rdma_rxe0")).isNotNull();
        edge(g, "rdma_rxe0", "port_rxe0_1", "has-port");
        edge(g, "port_rxe0_1", "link_" + pods.b.host().inode() + "_2", "port-netdev");
        RdmaPort port = rdma.devices().get(0).ports().get(0);
        for (int i = 0; i < 4; i++) {
            LinkRef net1 = pods.net1(i);
            TreeSet<Integer> expected = new TreeSet<>();
            for (GidEntry e : port.gids()) {
                if (net1.equals(e.ndev())) {
                    expected.add(e.index());
                }
            }
            assertThat(expected).as("the port's GID table gives pod %d an entry", i).isNotEmpty();
            Graph.Edge gid = edge(g, "port_rxe0_1", Ids.link(net1), "gid");
            assertThat(gid.label)
                    .containsExactly("gid " + String.join(",", expected.stream().map(String::valueOf).toList()));
        }
    }

    @Test
    void aNamespaceFilterKeepsItsLinksAndTheLinksTheyStandOnOnly() {
        Focus.Selection sel = new Focus(List.of("pod3"), null).select(topo, rdma);
        Graph g = TopologyGraph.build(topo, rdma, sel);
        NetnsId pod3 = pods.pods.get(2);
        assertThat(g.has("link_" + pod3.inode() + "_1")).isTrue();
        assertThat(g.has("link_" + pod3.inode() + "_2")).isTrue();
        assertThat(g.node("link_" + pods.b.host().inode() + "_2").classes).as("the uplink, for context")
                .contains("context");
        assertThat(g.has("link_" + pods.pods.get(3).inode() + "_2")).isFalse();
        assertThat(g.has("link_" + pods.b.host().inode() + "_" + Pods.BOND)).isFalse();
        assertThat(g.clusters()).extracting(c -> c.id).containsExactlyInAnyOrder("cluster_" + pods.b.host().inode(),
                "cluster_" + pod3.inode());
        assertThat(g.has("port_rxe0_1")).as("the port reaches pod3's net1").isTrue();
    }

    @Test
    void aPortFilterKeepsThePortsNetdevAndItsUppersInEveryNamespace() {
        Graph g = TopologyGraph.build(topo, rdma, new Focus(List.of(), "rxe0/1").select(topo, rdma));
        for (int i = 0; i < 4; i++) {
            assertThat(g.has(Ids.link(pods.net1(i)))).isTrue();
            assertThat(g.has("link_" + pods.pods.get(i).inode() + "_1"))
                    .as("a pod's lo is no upper of the port").isFalse();
        }
        assertThat(g.has("link_" + pods.b.host().inode() + "_" + Pods.BOND)).isFalse();
    }

    @Test
    void unknownNamespacesAndPortsAreUsageErrorsThatSayWhatExists() {
        assertThatThrownBy(() -> new Focus(List.of("nosuch"), null).select(topo, rdma))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--namespace nosuch");
        assertThatThrownBy(() -> new Focus(List.of(), "mlx5_0/1").select(topo, rdma))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rxe0/1");
    }

    @Test
    void theDotTextNamesEveryNodeOnceAndQuotesEveryLabel() {
        String dot = DotWriter.write(all());
        for (Graph.Node n : all().nodes()) {
            String decl = "\n" + (n.cluster == null ? "  " : "    ") + n.id + " [id=\"" + n.id + "\"";
            assertThat(dot.split(java.util.regex.Pattern.quote(decl), -1)).as(n.id).hasSize(2);
        }
        assertThat(dot).startsWith("digraph cmdemux {").endsWith("}\n");
    }
}
