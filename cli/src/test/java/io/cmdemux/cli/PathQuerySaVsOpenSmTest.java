package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.pathrecord.testkit.OpenSmFabric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * `cmdemux path query --source sa` end to end against OpenSM on ibsim (packages ibsim-utils, opensm,
 * infiniband-diags, libibumad-dev): the CLI runs as host H2 in its own JVM under the umad2sim
 * preload, and saquery, as the same host, is the oracle for every field the issue lists.
 */
class PathQuerySaVsOpenSmTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theCliRecordsEqualSaqueryForSeveralPairs() throws Exception {
        try (OpenSmFabric fabric = OpenSmFabric.start(4, 0)) {
            Path empty = Files.createDirectories(fabric.dir().resolve("empty-host"));
            Files.writeString(empty.resolve("netns.tsv"), "# name\tinode\tnsid-in-host\ninit\t4026531840\t-\n");
            String[][] pairs = {{"H2", "H4"}, {"H2", "H1"}, {"H3", "H2"}};
            for (String[] p : pairs) {
                String sgid = fabric.gid(p[0]).toString();
                String dgid = fabric.gid(p[1]).toString();
                Host.Result r = fabric.java("H2", 60, Main.class.getName(), "path", "query", "--json", "--source", "sa",
                        "--snapshot", empty.toString(),
                        "--device", OpenSmFabric.DEVICE, "--port", "1", "--sgid", sgid, "--dgid", dgid);
                assertThat(r.exit()).as(r.stdout() + r.stderr() + fabric.log()).isZero();
                JsonNode o = JSON.readTree(r.stdout());
                assertThat(o.get("source").asText()).isEqualTo("sa");
                JsonNode rec = o.get("records").get(0);
                Map<String, String> sa = fabric.saqueryPaths("H2", "--sgid-to-dgid", sgid + "-" + dgid).get(0);
                String what = p[0] + "->" + p[1];
                assertThat(rec.get("dlid").asText()).as(what + " dlid").isEqualTo(sa.get("dlid"));
                assertThat(rec.get("slid").asText()).as(what + " slid").isEqualTo(sa.get("slid"));
                assertThat(rec.get("pkey").asText()).as(what + " pkey").isEqualToIgnoringCase(sa.get("pkey"));
                assertThat(rec.get("sl").asInt()).as(what + " sl").isEqualTo(Integer.decode(sa.get("sl")));
                assertThat(rec.get("mtu").asInt()).as(what + " mtu").isEqualTo(Integer.decode(sa.get("mtu")) & 0x3f);
                assertThat(rec.get("rate").asInt()).as(what + " rate").isEqualTo(Integer.decode(sa.get("rate")) & 0x3f);
                assertThat(rec.get("packetLifetime").asInt()).as(what + " packet lifetime")
                        .isEqualTo(Integer.decode(sa.get("pkt_life")) & 0x3f);
                assertThat(rec.get("dgid").asText()).isEqualTo(sa.get("dgid"));
                assertThat(rec.get("sgid").asText()).isEqualTo(sa.get("sgid"));
            }
        }
    }
}
