package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `path query`, `path serve` and `path stats` in-process on a snapshot of an empty host, with the
 * hand-written dump_pr fixture of the pathrecord tests (../pathrecord/src/test/resources/static),
 * whose lines are the expected values. No root, no RDMA.
 */
class PathCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String FABRIC = Path.of("../pathrecord/src/test/resources/static/fabric.dump").toAbsolutePath()
            .normalize().toString();
    static final String SGID = "fe80::2:c903:0:1";
    static final String PEER = "fe80::2:c903:0:77";

    /** A snapshot of a host with nothing on it, so that no live state leaks in. */
    static Path emptyHost(Path tmp) throws Exception {
        Files.writeString(tmp.resolve("netns.tsv"), "# name\tinode\tnsid-in-host\ninit\t4026531840\t-\n");
        return tmp;
    }

    static Cli.Result query(Path tmp, String... extra) throws Exception {
        List<String> a = new ArrayList<>(List.of("path", "query", "--snapshot", emptyHost(tmp).toString(), "--source",
                "static", "--static-file", FABRIC,
                "--device", "mlx5_0", "--port", "1", "--sgid", SGID, "--dgid", PEER));
        a.addAll(List.of(extra));
        return Cli.run(a.toArray(String[]::new));
    }

    @Test
    void queryJsonHasTheIssuesShapeAndTheFixturesRecord(@TempDir Path tmp) throws Exception {
        Cli.Result r = query(tmp, "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode o = JSON.readTree(r.out());
        List<String> keys = new ArrayList<>();
        o.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).containsExactly("records", "rule", "source", "answer", "pathUse", "netns", "netdev", "detail");
        assertThat(o.get("source").asText()).isEqualTo("static");
        assertThat(o.get("rule").isNull()).isTrue();
        JsonNode rec = o.get("records").get(0);
        assertThat(rec.get("flags")).extracting(JsonNode::asText)
                .containsExactly("GMP", "PRIMARY", "OUTBOUND", "INBOUND_REVERSE");
        // fabric.dump, section of GUID ...01 (base LID 2): "0x0004 : 1 : 4 : 7"; P_Key
        // defaults to 0xffff, lifetime to 18.
        assertThat(rec.get("dgid").asText()).isEqualTo(PEER);
        assertThat(rec.get("sgid").asText()).isEqualTo(SGID);
        assertThat(rec.get("dlid").asInt()).isEqualTo(4);
        assertThat(rec.get("slid").asInt()).isEqualTo(2);
        assertThat(rec.get("pkey").asText()).isEqualTo("0xffff");
        assertThat(rec.get("sl").asInt()).isEqualTo(1);
        assertThat(rec.get("mtu").asInt()).isEqualTo(4);
        assertThat(rec.get("rate").asInt()).isEqualTo(7);
        assertThat(rec.get("packetLifetime").asInt()).isEqualTo(18);
    }

    @Test
    void aUnidirectionalQueryGetsOnePrimaryOutboundRecord(@TempDir Path tmp) throws Exception {
        Cli.Result r = query(tmp, "--json", "--path-use", "unidirectional", "--pkey", "0x8001");
        JsonNode rec = JSON.readTree(r.out()).get("records").get(0);
        assertThat(rec.get("flags")).extracting(JsonNode::asText).containsExactly("PRIMARY", "OUTBOUND");
        assertThat(rec.get("reversible").asBoolean()).isFalse();
        assertThat(rec.get("pkey").asText()).isEqualTo("0x8001");
    }

    @Test
    void aPolicyRuleChangesTheRecordAndIsNamed(@TempDir Path tmp) throws Exception {
        Path policy = tmp.resolve("policy.json");
        Files.writeString(policy, "{\"rules\":[{\"name\":\"gold-tclass\",\"match\":{\"tclass\":[32,63]},"
                + "\"action\":{\"sl\":9,\"mtu\":{\"max\":3},\"alternate\":true}},"
                + " {\"name\":\"no-bulk\",\"match\":{\"tclass\":200},\"action\":{\"deny\":true}}]}");
        Cli.Result r = query(tmp, "--json", "--policy", policy.toString(), "--tclass", "40");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode o = JSON.readTree(r.out());
        assertThat(o.get("rule").asText()).isEqualTo("gold-tclass");
        assertThat(o.get("records")).hasSize(2);
        assertThat(o.get("records").get(0).get("sl").asInt()).isEqualTo(9);
        assertThat(o.get("records").get(0).get("mtu").asInt()).isEqualTo(3);
        // The alternate goes through LID 5, "2 : 4 : 3" in the fixture, and gets the rule's changes too.
        assertThat(o.get("records").get(1).get("flags")).extracting(JsonNode::asText)
                .containsExactly("GMP", "ALTERNATE", "OUTBOUND", "INBOUND_REVERSE");
        assertThat(o.get("records").get(1).get("dlid").asInt()).isEqualTo(5);
        assertThat(o.get("records").get(1).get("rate").asInt()).isEqualTo(3);

        Cli.Result denied = query(tmp, "--json", "--policy", policy.toString(), "--tclass", "200");
        assertThat(denied.exit()).isEqualTo(1);
        JsonNode d = JSON.readTree(denied.out());
        assertThat(d.get("answer").asText()).isEqualTo("deny");
        assertThat(d.get("records")).isEmpty();
        assertThat(denied.err()).contains("denied by rule no-bulk");
    }

    @Test
    void anUnreachableDestinationIsTheAnswerNoWithExit1(@TempDir Path tmp) throws Exception {
        Cli.Result r = Cli.run("path", "query", "--snapshot", emptyHost(tmp).toString(), "--source", "static",
                "--static-file", FABRIC,
                "--device", "mlx5_0", "--port", "1", "--sgid", SGID, "--dgid", "fe80::2:c903:0:55");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains("answer no-path");
    }

    @Test
    void badArgumentsAreUsageErrors(@TempDir Path tmp) throws Exception {
        assertThat(query(tmp, "--path-use", "sideways").exit()).isEqualTo(2);
        assertThat(query(tmp, "--source", "oracle").exit()).isEqualTo(2);
        assertThat(Cli.run("path", "query", "--device", "d", "--port", "1", "--sgid", "nonsense", "--dgid", PEER)
                .exit()).isEqualTo(2);
        assertThat(query(tmp, "--tclass", "300").exit()).isEqualTo(2);
    }

    @Test
    void serveSaysOnceThatTheKernelHasNoNetlinkRdmaAndKeepsWritingStats(@TempDir Path tmp) throws Exception {
        Path stats = tmp.resolve("stats.json");
        Path cfg = tmp.resolve("config.json");
        Files.writeString(cfg, "{\"source\":\"static\",\"staticFile\":\"" + FABRIC + "\",\"kernelTimeoutMs\":1500}");
        Cli.Result s = Cli.run("path", "serve", "--for", "3", "--config", cfg.toString(), "--stats-file",
                stats.toString(), "--snapshot", emptyHost(tmp).toString());
        assertThat(s.exit()).as(s.err()).isZero();
        // This machine's kernel has no NETLINK_RDMA (docs/PATHRECORD.md); on one with RDMA the line says "listening".
        assertThat(s.err().lines().filter(l -> l.contains("path responder")).count()).isEqualTo(1);
        Cli.Result st = Cli.run("path", "stats", "--stats-file", stats.toString(), "--json");
        assertThat(st.exit()).as(st.err()).isZero();
        JsonNode j = JSON.readTree(st.out());
        String state = j.get("responder").get("state").asText();
        assertThat(state).isIn("OFF", "LISTENING");
        if (state.equals("OFF")) {
            assertThat(j.get("responder").get("detail").asText()).contains("NETLINK_RDMA");
            assertThat(s.err()).contains("no NETLINK_RDMA");
        }
        assertThat(j.get("source").get("name").asText()).isEqualTo("static");
        assertThat(j.get("cache").get("hits").asLong()).isZero();
        assertThat(Cli.run("path", "stats", "--stats-file", stats.toString()).out())
                .contains("cache      0 hits, 0 misses");
        assertThat(Cli.run("path", "stats", "--stats-file", tmp.resolve("none.json").toString()).exit()).isEqualTo(3);
    }
}
