package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.netdev.LinkInfo;
import io.cmdemux.render.picture.SvgDoc;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host with 1,000 pod namespaces (each a macvlan of one uplink carrying a soft RoCE port, as
 * the kernel would dump them), drawn through the CLI from a snapshot file: the filters keep the
 * picture small and the time bounded. Needs Graphviz (Debian package graphviz).
 */
class LargeTopologyPictureWithGraphvizTest {
    private static final int PODS = 1000;
    /** Generous bounds for a shared 2-core machine; the measured times are printed. */
    private static final long FILTERED_SVG_MILLIS = 20_000;
    private static final long WHOLE_DOT_MILLIS = 20_000;

    @TempDir
    static Path dir;
    private static Path snapshot;
    private static final List<NetnsId> pods = new ArrayList<>();

    @BeforeAll
    static void build() throws Exception {
        DumpBuilder b = new DumpBuilder();
        b.link(b.host(), 1, "lo").add();
        b.link(b.host(), 2, "up").add();
        for (int i = 1; i <= PODS; i++) {
            NetnsId p = b.pod("pod" + i, i);
            b.link(p, 1, "lo").add();
            b.link(p, 2, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).add();
            b.addr(p, 2, "10.81." + (i / 250) + "." + (i % 250 + 1) + "/16");
            pods.add(p);
        }
        snapshot = dir.resolve("thousand.zip");
        try (OutputStream out = Files.newOutputStream(snapshot)) {
            SnapshotFile.write(out, b.host(), b.dumps(), Map.of());
        }
    }

    @Test
    void oneNamespaceOfAThousandOnOnePortRendersAsSvgWithinBoundedTime() {
        Host.requireCommand("dot", "graphviz");
        long t0 = System.nanoTime();
        Cli.Result r = Cli.run("topology", "--snapshot", snapshot.toString(), "--rdma-port", "rxe0=up",
                "--format", "svg",
                "--namespace", "pod500", "--port", "rxe0/1");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("1000 namespaces, --namespace pod500 --port rxe0/1, svg: " + ms
                + " ms (snapshot read, GID table, layout)");
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        assertThat(ms).isLessThan(FILTERED_SVG_MILLIS);
        SvgDoc svg = SvgDoc.parse(r.out());
        NetnsId pod500 = pods.get(499);
        assertThat(svg.byId("ns_" + pod500.inode())).isNotNull();
        assertThat(svg.byId("link_" + pod500.inode() + "_2")).isNotNull();
        assertThat(svg.byId("port_rxe0_1")).isNotNull();
        assertThat(svg.byId("ns_" + pods.get(500).inode())).as("pod501 is filtered out").isNull();
        assertThat(svg.withClasses("node")).hasSizeLessThan(12);
    }

    @Test
    void aDecisionOnAPortSharedByAThousandPodsDrawsWhatItsTracePointsAtWithinBoundedTime() {
        Host.requireCommand("dot", "graphviz");
        long t0 = System.nanoTime();
        Cli.Result r = Cli.run("explain", "--snapshot", snapshot.toString(), "--rdma-port", "rxe0=up", "--dst",
                "10.81.2.1:7471",
                "--src", "10.81.9.9:4000", "--listener", "pod500:0.0.0.0:7471", "--format", "svg");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("1000 namespaces, explain --format svg: " + ms + " ms");
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        assertThat(ms).isLessThan(FILTERED_SVG_MILLIS);
        SvgDoc svg = SvgDoc.parse(r.out());
        NetnsId pod500 = pods.get(499);
        assertThat(svg.byId("link_" + pod500.inode() + "_2").getAttribute("class")).contains("walk");
        // the walk, and a dozen turned-down macvlans of netstack's rx-upper with their namespaces: not a thousand
        assertThat(svg.withClasses("node")).hasSizeLessThan(50);
        assertThat(r.out()).contains("only what the trace points at is drawn").contains("the first 12 are drawn");
    }

    @Test
    void theWholeThousandAsDotWithinBoundedTime() {
        long t0 = System.nanoTime();
        Cli.Result r = Cli.run("topology", "--snapshot", snapshot.toString(), "--rdma-port", "rxe0=up",
                "--format", "dot");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("1000 namespaces, whole host, dot: " + ms + " ms, " + r.out().length() + " bytes");
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        assertThat(ms).isLessThan(WHOLE_DOT_MILLIS);
        assertThat(r.out().split("\n  subgraph cluster_", -1)).hasSize(PODS + 2);
    }
}
