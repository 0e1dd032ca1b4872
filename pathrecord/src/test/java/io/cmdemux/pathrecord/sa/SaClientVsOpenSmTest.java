package io.cmdemux.pathrecord.sa;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.pathrecord.testkit.CPrograms;
import io.cmdemux.pathrecord.testkit.OpenSmFabric;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Our SA client against a real SA: OpenSM on ibsim (packages ibsim-utils, opensm,
 * infiniband-diags, libibumad-dev). The client runs as host H2 in its own small JVM under the
 * umad2sim preload; saquery, run as the same host, is the oracle for every record, field by field.
 */
class SaClientVsOpenSmTest {
    static OpenSmFabric fabric;

    @BeforeAll
    static void startFabric() {
        fabric = OpenSmFabric.start(4, 0);
    }

    @AfterAll
    static void stopFabric() {
        if (fabric != null) {
            fabric.close();
        }
    }

    private static List<Map<String, String>> probe(String host, String... args) {
        List<String> a = new ArrayList<>(List.of(OpenSmFabric.DEVICE, "1"));
        a.addAll(List.of(args));
        Host.Result r = fabric.java(host, 60, SaProbe.class.getName(), a.toArray(String[]::new));
        if (r.exit() != 0) {
            throw new AssertionError(
                    "SaProbe exited " + r.exit() + ":\n" + r.stdout() + r.stderr() + "\n" + fabric.log());
        }
        List<Map<String, String>> out = new ArrayList<>();
        for (String line : CPrograms.lines(r.stdout())) {
            int sp = line.indexOf(' ');
            Map<String, String> m = CPrograms.keyValues(line.substring(sp + 1));
            m.put("result", line.substring(0, sp));
            out.add(m);
        }
        return out;
    }

    @Test
    void recordsForSeveralPairsEqualSaqueryFieldForField() {
        String h2 = fabric.gid("H2").toString();
        List<String[]> pairs = List.of(
                new String[] {h2, fabric.gid("H4").toString()},
                new String[] {h2, fabric.gid("H1").toString()},
                new String[] {h2, fabric.gid("H3").toString()},
                new String[] {h2, h2},
                new String[] {fabric.gid("H3").toString(), fabric.gid("H4").toString()});
        List<String> args = new ArrayList<>();
        for (String[] p : pairs) {
            args.add(p[0] + "-" + p[1]);
        }
        args.add(h2 + "-" + fabric.gid("H4") + "/0x7fff");
        List<Map<String, String>> ours = probe("H2", args.toArray(String[]::new));
        assertThat(ours.get(0)).containsEntry("result", "port").containsEntry("lid", Integer.toString(fabric.lid("H2")))
                .containsEntry("gid", h2).containsEntry("state", "4");
        for (int i = 0; i < pairs.size(); i++) {
            Map<String, String> sa =
                    only(fabric.saqueryPaths("H2", "--sgid-to-dgid", pairs.get(i)[0] + "-" + pairs.get(i)[1]));
            assertSameRecord(ours.get(i + 1), sa, String.join("->", pairs.get(i)));
        }
        Map<String, String> sa =
                only(fabric.saqueryPaths("H2", "--sgid-to-dgid", h2 + "-" + fabric.gid("H4"), "--pkey", "0x7fff"));
        assertSameRecord(ours.get(pairs.size() + 1), sa, "with P_Key 0x7fff");
    }

    private static Map<String, String> only(List<Map<String, String>> recs) {
        assertThat(recs).as("saquery records").hasSize(1);
        return recs.get(0);
    }

    /**
     * saquery prints MTU, rate and packet lifetime with their selector in bits 7..6, and num_path_revers as
     * reversible<<7 | numb_path.
     */
    static void assertSameRecord(Map<String, String> ours, Map<String, String> sa, String what) {
        assertThat(ours.get("result")).as(what + ": " + ours).isEqualTo("ok");
        assertThat(ours.get("dgid")).as(what + " dgid").isEqualTo(sa.get("dgid"));
        assertThat(ours.get("sgid")).as(what + " sgid").isEqualTo(sa.get("sgid"));
        assertThat(ours.get("dlid")).as(what + " dlid").isEqualTo(sa.get("dlid"));
        assertThat(ours.get("slid")).as(what + " slid").isEqualTo(sa.get("slid"));
        assertThat(ours.get("pkey")).as(what + " pkey").isEqualToIgnoringCase(sa.get("pkey"));
        assertThat(Integer.decode(ours.get("sl"))).as(what + " sl").isEqualTo(Integer.decode(sa.get("sl")));
        int mtu = Integer.decode(sa.get("mtu"));
        assertThat(Integer.parseInt(ours.get("mtu"))).as(what + " mtu").isEqualTo(mtu & 0x3f);
        assertThat(Integer.parseInt(ours.get("mtu_selector"))).as(what + " mtu selector").isEqualTo(mtu >> 6);
        int rate = Integer.decode(sa.get("rate"));
        assertThat(Integer.parseInt(ours.get("rate"))).as(what + " rate").isEqualTo(rate & 0x3f);
        assertThat(Integer.parseInt(ours.get("rate_selector"))).as(what + " rate selector").isEqualTo(rate >> 6);
        int plt = Integer.decode(sa.get("pkt_life"));
        assertThat(Integer.parseInt(ours.get("packet_life_time"))).as(what + " packet lifetime").isEqualTo(plt & 0x3f);
        assertThat(Integer.parseInt(ours.get("packet_life_time_selector")))
                .as(what + " packet lifetime selector")
                .isEqualTo(plt >> 6);
        int nr = Integer.decode(sa.get("num_path_revers"));
        assertThat(Integer.parseInt(ours.get("reversible"))).as(what + " reversible").isEqualTo(nr >> 7);
        assertThat(Integer.parseInt(ours.get("tclass")))
                .as(what + " tclass")
                .isEqualTo(Integer.decode(sa.get("tclass")));
        assertThat(Integer.parseInt(ours.get("qos_class")))
                .as(what + " qos class")
                .isEqualTo(Integer.decode(sa.get("qos_class")));
        assertThat(Integer.parseInt(ours.get("preference")))
                .as(what + " preference")
                .isEqualTo(Integer.decode(sa.get("preference")));
        int hfr = Integer.decode(sa.get("hop_flow_raw"));
        assertThat(Integer.parseInt(ours.get("hop_limit"))).as(what + " hop limit").isEqualTo(hfr & 0xff);
        assertThat(Integer.parseInt(ours.get("flow_label"))).as(what + " flow label").isEqualTo((hfr >>> 8) & 0xfffff);
    }

    @Test
    void anUnknownDgidIsAnsweredAsNoPathNotAsATimeout() {
        List<Map<String, String>> ours = probe("H2", fabric.gid("H2") + "-fe80::dead:beef");
        assertThat(ours.get(1)).containsEntry("result", "err");
        assertThat(ours.get(1).get("msg")).contains("has_no_path");
        assertThat(fabric.saqueryPaths("H2", "--sgid-to-dgid", fabric.gid("H2") + "-fe80::dead:beef").stream()
                .filter(r -> !"0".equals(r.get("dlid"))).toList()).as("saquery finds no path either").isEmpty();
    }

    @Test
    void queriesBeyondTheOutstandingLimitAreRefusedAtOnce() {
        // Eight queries fired back to back with room for one: the first goes out, the ones issued while it is in
        // flight (microseconds apart, against an answer that takes hundreds) are refused, none waits.
        String h2 = fabric.gid("H2").toString();
        List<String> args = new ArrayList<>(List.of("--outstanding", "1"));
        for (int i = 0; i < 8; i++) {
            args.add(h2 + "-" + fabric.gid("H" + (1 + i % 4)));
        }
        List<Map<String, String>> ours = probe("H2", args.toArray(String[]::new)).subList(1, 9);
        assertThat(ours.get(0)).containsEntry("result", "ok");
        List<Map<String, String>> refused = ours.stream().filter(m -> m.get("result").equals("err")).toList();
        assertThat(refused).isNotEmpty().allSatisfy(m -> assertThat(m.get("msg")).contains("outstanding"));
        assertThat(ours.stream().filter(m -> m.get("result").equals("ok")).count() + refused.size()).isEqualTo(8);
    }
}
