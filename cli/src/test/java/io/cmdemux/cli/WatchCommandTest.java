package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `cmdemux watch`: live on this machine (whatever it lacks, it must say so and exit 3), and on every kernel-lab
 * recording, whose requests must come out with the outcome derive-expected found and cmdemux's agreeing
 * prediction.
 */
class WatchCommandTest {
    private static final Path LAB = Path.of("..", "it", "fixtures", "lab");
    private static final ObjectMapper JSON = new ObjectMapper();

    static List<Path> recordings() throws IOException {
        try (Stream<Path> s = Files.list(LAB)) {
            List<Path> all = s.filter(d -> Files.isRegularFile(d.resolve("tracefs/trace.txt"))).sorted().toList();
            assertThat(all).as("lab fixtures with tracefs recordings under %s", LAB.toAbsolutePath()).isNotEmpty();
            return all;
        }
    }

    @Test
    void liveOnAHostWithoutRdmaItExitsThreeNamingWhatIsMissing() {
        boolean ibCore = Files.isDirectory(Path.of("/sys/module/ib_core"));
        boolean cm = Files.isDirectory(Path.of("/sys/module/ib_cm"))
                && Files.isDirectory(Path.of("/sys/module/rdma_cm"));
        Cli.Result r = Cli.run("watch");
        if (ibCore && cm && Files.isDirectory(Path.of("/sys/kernel/tracing/instances"))) {
            throw new AssertionError("this test expects a host without the RDMA CM; this one has it: " + r.err());
        }
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCode.ENVIRONMENT);
        assertThat(r.err().strip()).as("one line").doesNotContain("\n").startsWith("cmdemux: watch:");
        if (!ibCore) {
            assertThat(r.err()).contains("NETLINK_RDMA").contains("EPROTONOSUPPORT");
        }
        if (!cm) {
            assertThat(r.err()).contains("ib_cm/rdma_cm and their tracepoints");
        }
        assertThat(r.out()).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("recordings")
    void labJsonGivesEveryRequestsKernelOutcomeAndAnAgreeingPrediction(Path dir) throws Exception {
        Cli.Result r = Cli.run("watch", "--lab", dir.toString(), "--json");
        assertThat(r.exit()).as("%s%n%s", r.out(), r.err()).isZero();
        Map<String, String> got = new LinkedHashMap<>();
        for (String line : r.out().lines().toList()) {
            JsonNode o = JSON.readTree(line);
            assertThat(o.has("localCommId") && o.has("outcome") && o.has("rejectReason") && o.has("namespace")
                    && o.has("listener") && o.has("prediction") && o.has("agree")).as(line).isTrue();
            String outcome = o.get("outcome").asText();
            String label = switch (outcome) {
                case "deliver" -> "deliver:" + o.get("namespace").get("names").get(0).asText();
                case "reject" -> "reject:" + o.get("rejectReason").asInt();
                default -> "drop";
            };
            if (outcome.equals("deliver")) {
                assertThat(o.get("namespace").get("inode").asLong()).isPositive();
                assertThat(o.get("listener").get("pid").asInt()).isPositive();
                // The prediction names the same namespace by inode.
                assertThat(o.get("prediction").get("namespace").get("inode").asLong())
                        .isEqualTo(o.get("namespace").get("inode").asLong());
            }
            assertThat(o.get("prediction").get("outcome").asText()).isEqualTo(outcome);
            assertThat(o.get("agree").asBoolean()).as(line).isTrue();
            got.put(o.get("localCommId").asText(), label);
        }
        assertThat(got).containsExactlyInAnyOrderEntriesOf(LabCheckCommand.expected(dir));
    }

    static List<Path> rxeLimits() throws IOException {
        try (Stream<Path> s = Files.list(LAB.resolve("rxe-limits"))) {
            return s.filter(d -> Files.isRegularFile(d.resolve("tracefs/trace.txt"))).sorted().toList();
        }
    }

    /**
     * rxe-limits/: rxe's receive path, not the RDMA CM, decides there. The kernel's outcomes still come out as
     * derive-expected found them; cmdemux predicts for a real NIC, so where it disagrees the kernel dropped the
     * request before rdma_cm (the kprobe never saw it), and watch says so with exit 1.
     */
    @ParameterizedTest
    @MethodSource("rxeLimits")
    void onRxeLimitsTheKernelsOutcomesComeOutAndOnlyRxeDropsDisagree(Path dir) throws Exception {
        Cli.Result r = Cli.run("watch", "--lab", dir.toString(), "--json");
        Map<String, String> got = new LinkedHashMap<>();
        boolean disagreed = false;
        for (String line : r.out().lines().toList()) {
            JsonNode o = JSON.readTree(line);
            String outcome = o.get("outcome").asText();
            got.put(o.get("localCommId").asText(), switch (outcome) {
                case "deliver" -> "deliver:" + o.get("namespace").get("names").get(0).asText();
                case "reject" -> "reject:" + o.get("rejectReason").asInt();
                default -> "drop";
            });
            if (o.get("agree").isBoolean() && !o.get("agree").asBoolean()) {
                disagreed = true;
                assertThat(outcome).as("a disagreement that is not an rxe drop: %s", line).isEqualTo("drop");
                assertThat(o.get("device").isNull()).as("the kprobe saw it: %s", line).isTrue();
            }
        }
        assertThat(got).containsExactlyInAnyOrderEntriesOf(LabCheckCommand.expected(dir));
        assertThat(r.exit()).as(r.err()).isEqualTo(disagreed ? 1 : 0);
    }

    @Test
    void aTaggedRequestNamesTheGidEntryOnThePodsVlanDevice() throws Exception {
        // vlan-in-pod: the REQ came tagged 100 to the pod's vA.100; the entry ib_cm matched is that ndev's.
        Path dir = LAB.resolve("vlan-in-pod");
        Cli.Result r = Cli.run("watch", "--lab", dir.toString(), "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(1);
        JsonNode o = JSON.readTree(lines.get(0));
        assertThat(o.get("gidIndex").isInt()).as(lines.get(0)).isTrue();
        Path ndev = dir.resolve("sysfs/" + o.get("device").asText() + "/ports/" + o.get("port").asInt()
                + "/gid_attrs/ndevs/" + o.get("gidIndex").asInt());
        assertThat(Files.readString(ndev).strip()).isEqualTo("vA.100");
        assertThat(o.get("agree").asBoolean()).isTrue();
    }

    @ParameterizedTest
    @MethodSource("recordings")
    void labTextHasOneAgreeingLinePerRequest(Path dir) {
        Cli.Result r = Cli.run("watch", "--lab", dir.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().lines()).hasSize(LabCheckCommand.expected(dir).size())
                .allSatisfy(l -> assertThat(l).endsWith("; agree"));
    }

    @Test
    void namespaceFilterKeepsOnlyRequestsDeliveredThere() {
        Path dir = LAB.resolve("ps-ib-pod");
        Cli.Result r = Cli.run("watch", "--lab", dir.toString(), "--namespace", "pod1");
        long want = LabCheckCommand.expected(dir).values().stream().filter("deliver:pod1"::equals).count();
        assertThat(want).isPositive();
        assertThat(r.out().lines()).hasSize((int) want).allSatisfy(l -> assertThat(l).contains("deliver:pod1"));
    }

    @Test
    void printProbeWithoutRdmaCmBtfIsAnEnvironmentError() {
        if (Files.exists(Path.of("/sys/kernel/btf/rdma_cm"))) {
            Cli.Result r = Cli.run("watch", "--print-probe");
            assertThat(r.exit()).isZero();
            assertThat(r.out()).startsWith("p:cmdemux/req cma_ib_req_handler ");
            return;
        }
        Cli.Result r = Cli.run("watch", "--print-probe");
        assertThat(r.exit()).isEqualTo(ExitCode.ENVIRONMENT);
        assertThat(r.err()).contains("/sys/kernel/btf/rdma_cm").contains("modprobe rdma_cm");
    }
}
