package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The GID verbs on a snapshot directory holding the sysfs fixture of the gid module; no root needed. */
class GidsCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A snapshot directory: a host with no links (netns.tsv only) and the RoCE fixture as its sysfs/ entries. */
    static Path snapshotDir(Path tmp, String fixture) throws Exception {
        Path src = Path.of("../gid/src/test/resources/sysfs", fixture).toAbsolutePath().normalize();
        Files.writeString(tmp.resolve("netns.tsv"), "# name\tinode\tnsid-in-host\ninit\t4026531840\t-\n");
        copy(src.resolve("class/infiniband"), tmp.resolve("sysfs"));
        copy(src.resolve("class/net"), tmp.resolve("sysfs-net"));
        Files.createDirectories(tmp.resolve("sysfs-ib_core"));
        Files.copy(src.resolve("module/ib_core/parameters/netns_mode"), tmp.resolve("sysfs-ib_core/netns_mode"));
        return tmp;
    }

    private static void copy(Path from, Path to) throws Exception {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }

    @Test
    void gidsJsonHasExactlyTheIssuesFieldsAndTheFixturesTable(@TempDir Path tmp) throws Exception {
        Path dir = snapshotDir(tmp, "roce");
        Cli.Result r = Cli.run("gids", "--json", "--snapshot", dir.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode arr = JSON.readTree(r.out());
        assertThat(arr).hasSize(10);
        for (JsonNode e : arr) {
            List<String> keys = new ArrayList<>();
            e.fieldNames().forEachRemaining(keys::add);
            assertThat(keys).containsExactly("device", "port", "index", "gid", "type", "ndev", "namespaceNames");
        }
        // The fixture README: index 0 is the v1 default GID of eth2, index 3 the v2 GID of 10.77.0.10.
        assertThat(arr.get(0).get("gid").asText()).isEqualTo("fe80::5054:ff:fe12:3456");
        assertThat(arr.get(0).get("type").asText()).isEqualTo("RoCE v1");
        assertThat(arr.get(3).get("gid").asText()).isEqualTo("::ffff:10.77.0.10");
        assertThat(arr.get(3).get("type").asText()).isEqualTo("RoCE v2");
        // This snapshot's host has no links at all, so no entry can be tied to one, and stderr says why.
        assertThat(arr.get(3).get("ndev").isNull()).isTrue();
        assertThat(r.err()).contains("ndev 'net1' is no link in any namespace");
    }

    @Test
    void gidsTextIsAShowGidsTable(@TempDir Path tmp) throws Exception {
        Cli.Result r = Cli.run("gids", "--snapshot", snapshotDir(tmp, "roce").toString(), "--device", "mlx5_1");
        assertThat(r.exit()).isZero();
        assertThat(r.out().lines().findFirst().orElseThrow()).startsWith("DEV")
                .contains("PORT", "INDEX", "GID", "IPv4", "VER", "NDEV", "NETNS", "NAMES");
        assertThat(r.out()).contains("0000:0000:0000:0000:0000:ffff:0a4d:000b 10.77.0.11").contains("10 GIDs");
    }

    @Test
    void unknownDeviceIsAUsageError(@TempDir Path tmp) throws Exception {
        Cli.Result r = Cli.run("gids", "--snapshot", snapshotDir(tmp, "roce").toString(), "--device", "mlx5_9");
        assertThat(r.exit()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("no RDMA device mlx5_9").contains("mlx5_1");
    }

    @Test
    void checkExitsOneAndListsEachProblemWithAFix(@TempDir Path tmp) throws Exception {
        Cli.Result r = Cli.run("gids", "check", "--json", "--snapshot", snapshotDir(tmp, "roce").toString());
        assertThat(r.exit()).isEqualTo(ExitCode.NO);
        JsonNode j = JSON.readTree(r.out());
        assertThat(j.get("ok").asBoolean()).isFalse();
        assertThat(j.get("problems")).isNotEmpty().allSatisfy(p -> assertThat(p.get("fix").asText()).isNotBlank());
    }

    @Test
    void badRdmaPortSyntaxIsAUsageError(@TempDir Path tmp) throws Exception {
        Cli.Result r = Cli.run("gids", "--snapshot", snapshotDir(tmp, "roce").toString(), "--rdma-port", "nonsense");
        assertThat(r.exit()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("NAME=NETDEV");
    }
}
