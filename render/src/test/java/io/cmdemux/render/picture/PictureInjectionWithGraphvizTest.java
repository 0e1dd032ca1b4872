package io.cmdemux.render.picture;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.testkit.Host;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * Hostile names (a namespace may be called almost anything under /run/netns) go through DOT and
 * Graphviz into SVG as text, never as markup. Needs Graphviz (Debian package graphviz).
 */
class PictureInjectionWithGraphvizTest {
    static final List<String> HOSTILE = List.of(
            "q\"uote\"];evil[label=\"x",
            "<script>alert(1)</script>",
            "<b>bold</b>&amp;",
            "a&lt;i&gt;b",
            "back\\slash\\N\\G",
            "ünï©ødé 名前 🚀",
            "]]><svg onload=alert(1)>",
            "x'y`z");
    /** What Graphviz's SVG may contain; anything else came from a name. */
    static final Set<String> SVG_VOCABULARY = Set.of("svg", "g", "title", "polygon", "polyline", "path",
            "ellipse", "text", "a");

    @Test
    void hostileNamespaceNamesAreTextInTheDotAndTheSvg() throws Exception {
        Host.requireCommand("dot", Graphviz.PACKAGE);
        Pods pods = new Pods(HOSTILE);
        TopologySnapshot topo = pods.topology();
        RdmaTopology rdma = Pods.rdma(topo);
        Graph g = TopologyGraph.build(topo, rdma, Focus.ALL.select(topo, rdma));
        String dot = DotWriter.write(g);
        String svg = Graphviz.find("/usr/bin:/bin", 60_000).svg(dot); // dot exits 0, or this throws with its stderr

        SvgDoc doc = SvgDoc.parse(svg);
        assertThat(doc.elementNames()).isSubsetOf(SVG_VOCABULARY);
        for (int i = 0; i < HOSTILE.size(); i++) {
            Element ns = doc.byId("ns_" + pods.pods.get(i).inode());
            assertThat(ns).as("node of namespace %s", HOSTILE.get(i)).isNotNull();
            assertThat(SvgDoc.texts(ns)).containsExactly("netns " + HOSTILE.get(i));
            assertThat(SvgDoc.title(ns)).startsWith("netns " + HOSTILE.get(i) + "\n");
            Element cluster = doc.byId("cluster_" + pods.pods.get(i).inode());
            assertThat(SvgDoc.texts(cluster)).startsWith("netns " + HOSTILE.get(i));
        }
    }

    @Test
    void controlCharactersInALinkNameBecomeAReplacementCharacter() throws Exception {
        Host.requireCommand("dot", Graphviz.PACKAGE);
        Pods pods = new Pods(List.of("pod1"));
        pods.b.link(pods.pods.get(0), 3, "ev\nil\u0007").add();
        TopologySnapshot topo = pods.topology();
        RdmaTopology rdma = Pods.rdma(topo);
        String svg = Graphviz.find("/usr/bin:/bin", 60_000)
                .svg(DotWriter.write(TopologyGraph.build(topo, rdma, Focus.ALL.select(topo, rdma))));
        Element link = SvgDoc.parse(svg).byId("link_" + pods.pods.get(0).inode() + "_3");
        assertThat(SvgDoc.texts(link).get(0)).isEqualTo("ev\uFFFDil\uFFFD #3");
    }

    @Test
    void withoutGraphvizTheSvgFormatSaysWhichPackageToInstall() {
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> Graphviz.find("/nonexistent", 1000)))
                .isInstanceOf(Graphviz.GraphvizException.class)
                .hasMessageContaining("install the Debian package graphviz");
    }
}
