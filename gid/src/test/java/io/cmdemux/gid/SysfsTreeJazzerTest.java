package io.cmdemux.gid;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.testkit.DecoderContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Jazzer fuzz target for SysfsReader: the text of the sysfs files it parses (node_guid, port state and
 * link layer, a P_Key, GIDs with their gid_attrs types and ndevs, a net device's type, address, dev_port
 * and dev_id, ib_core's netns_mode) comes from the input, split at NUL bytes, one part per file in the
 * order of {@link #FILES}; a file without a part is left out of the tree. The rest of the tree is the
 * "roce" fixture. Whatever the files say, the reader returns a topology and counts what it could not use
 * as problems, one line each: it never throws. The committed inputs are in SysfsTreeJazzerTestInputs/.
 */
class SysfsTreeJazzerTest {
    private static final String PORT = "class/infiniband/mlx5_1/ports/1/";
    static final List<String> FILES = List.of(
            "class/infiniband/mlx5_1/node_guid",
            "class/infiniband/mlx5_1/node_type",
            PORT + "state",
            PORT + "link_layer",
            PORT + "pkeys/0",
            PORT + "gids/0",
            PORT + "gid_attrs/types/0",
            PORT + "gid_attrs/ndevs/0",
            PORT + "gids/3",
            PORT + "gid_attrs/types/3",
            PORT + "gid_attrs/ndevs/3",
            "class/net/eth2/type",
            "class/net/eth2/address",
            "class/net/eth2/dev_port",
            "class/net/eth2/dev_id",
            "module/ib_core/parameters/netns_mode");
    /** The paths and texts of the tree's ~60 files, its devices, ports and GID entries and the problems. */
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(2 << 20, 64);

    private static Path root;
    private static TopologySnapshot snapshot;

    @BeforeAll
    static void tree() {
        root = SysfsFuzzProperties.copy("roce");
        snapshot = SysfsReaderTest.roceTopology().build(1);
    }

    @AfterAll
    static void removeTree() {
        SysfsFuzzProperties.delete(root);
    }

    @FuzzTest
    void anyFileContentsGiveATopologyAndCountedProblems(byte[] input) throws Exception {
        List<byte[]> parts = splitAtNul(input);
        for (int i = 0; i < FILES.size(); i++) {
            Path file = root.resolve(FILES.get(i));
            if (i < parts.size()) {
                Files.write(file, parts.get(i));
            } else {
                Files.deleteIfExists(file);
            }
        }
        SysfsReader.Result[] result = new SysfsReader.Result[1];
        DecoderContract.check(
                input.length, BUDGET, () -> result[0] = SysfsReader.read(SysfsLayout.live(root), snapshot));
        assertThat(result[0].topology()).isNotNull();
        assertThat(result[0].problems()).allMatch(p -> !p.contains("\n"));
    }

    static List<byte[]> splitAtNul(byte[] input) {
        List<byte[]> parts = new java.util.ArrayList<>();
        int start = 0;
        for (int i = 0; i <= input.length; i++) {
            if (i == input.length || input[i] == 0) {
                parts.add(Arrays.copyOfRange(input, start, i));
                start = i + 1;
            }
        }
        return parts;
    }
}
