package io.cmdemux.pathrecord.sa;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.pathrecord.testkit.CPrograms;
import io.cmdemux.pathrecord.testkit.OpenSmFabric;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Alternate paths from a real SA: OpenSM with LMC 1 gives every port two LIDs, and the alternate of
 * a path is the same (SGID, DGID) through the destination's other LID, asked with DGID and DLID
 * both in the component mask (what PathResolver asks for an "alternate" rule). saquery, asked for
 * the same SLID/DLID pairs, is the oracle.
 */
class SaAlternatePathsWithLmcTest {

    @Test
    void theAlternateThroughTheOtherPathBitsEqualsSaquerysRecordForThoseLids() {
        try (OpenSmFabric fabric = OpenSmFabric.start(3, 1)) {
            String h2 = fabric.gid("H2").toString();
            String h3 = fabric.gid("H3").toString();
            int base = fabric.lid("H3");
            Host.Result r = fabric.java("H2", 60, SaProbe.class.getName(), OpenSmFabric.DEVICE, "1", h2 + "-" + h3,
                    h2 + "-" + h3 + "@" + (base + 1), h2 + "-" + h3 + "@" + fabric.lid("H1"));
            assertThat(r.exit()).as(r.stdout() + r.stderr()).isZero();
            List<Map<String, String>> ours = new ArrayList<>();
            for (String line : CPrograms.lines(r.stdout())) {
                int sp = line.indexOf(' ');
                Map<String, String> m = CPrograms.keyValues(line.substring(sp + 1));
                m.put("result", line.substring(0, sp));
                ours.add(m);
            }
            assertThat(ours.get(0)).containsEntry("lmc", "1");
            Map<String, String> primary = ours.get(1);
            Map<String, String> alternate = ours.get(2);
            assertThat(primary).containsEntry("dlid", Integer.toString(base));
            assertThat(alternate).containsEntry("dlid", Integer.toString(base + 1));
            for (Map<String, String> m : List.of(primary, alternate)) {
                List<Map<String, String>> sa = fabric.saqueryPaths(
                        "H2", "--sgid", h2, "--dgid", h3, "--slid", m.get("slid"), "--dlid", m.get("dlid"));
                assertThat(sa).hasSize(1);
                SaClientVsOpenSmTest.assertSameRecord(m, sa.get(0), "DLID " + m.get("dlid"));
            }
            // Another port's LID with this DGID matches no path: no wrong record for an LMC-0 destination either.
            assertThat(ours.get(3)).containsEntry("result", "err");
        }
    }
}
