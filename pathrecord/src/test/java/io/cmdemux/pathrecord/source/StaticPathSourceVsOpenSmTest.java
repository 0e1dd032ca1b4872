package io.cmdemux.pathrecord.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.netdev.MalformedException;
import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.pathrecord.PathRecord;
import io.cmdemux.pathrecord.testkit.OpenSmFabric;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The static source against a real SA: a dump_pr file written from saquery's answers in the
 * plugin's layout (Debian's OpenSM lacks the plugin itself), then every pair looked up in it must
 * give saquery's DLID, SLID, SL, MTU and rate. Needs ibsim-utils, opensm, infiniband-diags.
 */
class StaticPathSourceVsOpenSmTest {

    @Test
    void everyPairOfADumpWrittenFromSaqueryGivesSaquerysFields() throws Exception {
        try (OpenSmFabric fabric = OpenSmFabric.start(3, 0)) {
            StringBuilder dump =
                    new StringBuilder("# written by the test from saquery -p answers, in dump_pr's layout\n");
            for (String s : fabric.hosts()) {
                // dump_pr.c: "%s 0x%016" PRIx64 ", base LID %d, \"%s\", port %d\n# LID  : SL : MTU : RATE\n"
                dump.append(String.format(
                        "Channel Adapter 0x%016x, base LID %d, \"%s HCA-1\", port %d%n# LID  : SL : MTU : RATE%n",
                        fabric.gid(s).lo(), fabric.lid(s), s, 1));
                for (String d : fabric.hosts()) {
                    Map<String, String> sa = fabric.saqueryPaths(
                                    "H2", "--sgid-to-dgid", fabric.gid(s) + "-" + fabric.gid(d))
                            .get(0);
                    // dump_pr.c: "0x%04X : %-2d : %-3d : %-4d\n"
                    dump.append(String.format("0x%04X : %-2d : %-3d : %-4d%n", Integer.parseInt(sa.get("dlid")),
                            Integer.decode(sa.get("sl")), Integer.decode(sa.get("mtu")) & 0x3f,
                            Integer.decode(sa.get("rate")) & 0x3f));
                }
                dump.append("0x00FE : UNREACHABLE\n\n");
            }
            StaticPathSource src = new StaticPathSource(StaticPathFile.parse(dump.toString()), 18, "saquery dump");
            for (String s : fabric.hosts()) {
                for (String d : fabric.hosts()) {
                    Map<String, String> sa = fabric.saqueryPaths(
                                    "H2", "--sgid-to-dgid", fabric.gid(s) + "-" + fabric.gid(d))
                            .get(0);
                    PathRecord r = src.resolve(PathQuery.of("ibsim0", 1, fabric.gid(s), fabric.gid(d))).join();
                    String what = s + "->" + d;
                    assertThat(r.dlid()).as(what + " dlid").isEqualTo(Integer.parseInt(sa.get("dlid")));
                    assertThat(r.slid()).as(what + " slid").isEqualTo(Integer.parseInt(sa.get("slid")));
                    assertThat(r.sl()).as(what + " sl").isEqualTo(Integer.decode(sa.get("sl")));
                    assertThat(r.mtu()).as(what + " mtu").isEqualTo(Integer.decode(sa.get("mtu")) & 0x3f);
                    assertThat(r.mtuSelector())
                            .as(what + " mtu selector")
                            .isEqualTo(Integer.decode(sa.get("mtu")) >> 6);
                    assertThat(r.rate()).as(what + " rate").isEqualTo(Integer.decode(sa.get("rate")) & 0x3f);
                    assertThat(r.rateSelector())
                            .as(what + " rate selector")
                            .isEqualTo(Integer.decode(sa.get("rate")) >> 6);
                    assertThat(String.format("0x%04X", r.pkey())).as(what + " pkey").isEqualTo(sa.get("pkey"));
                    assertThat(r.dgid().toString()).isEqualTo(sa.get("dgid"));
                    assertThat(r.sgid().toString()).isEqualTo(sa.get("sgid"));
                }
            }
            assertThatThrownBy(() -> src.resolve(PathQuery.of("ibsim0", 1, fabric.gid("H1"), fabric.gid("H2"))
                                    .withDlid(0xfe))
                            .join())
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(NoPathException.class)
                    .hasMessageContaining("UNREACHABLE");
        }
    }

    @Test
    void malformedDumpsAreRefusedWithTheLine() {
        assertThatThrownBy(() -> StaticPathFile.parse("0x0001 : 0 : 4 : 3\n")).isInstanceOf(MalformedException.class)
                .hasMessageContaining("line 1").hasMessageContaining("before any");
        assertThatThrownBy(() -> StaticPathFile.parse("Channel Adapter 0xzz, base LID 1, \"x\", port 1\n"))
                .hasMessageContaining("not hex");
        assertThatThrownBy(() -> StaticPathFile.parse("Switch 0x1, base LID 1, \"s\", port 0\n0x0002 : 1 : 4\n"))
                .hasMessageContaining("line 2");
        assertThatThrownBy(() -> StaticPathFile.parse("Router 0x1, base LID 1, \"r\", port 0\n0x0002 : 16 : 4 : 3\n"))
                .hasMessageContaining("out of range");
    }
}
