package io.cmdemux.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.testkit.DecoderContract;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Jazzer fuzz target for SnapshotFile: a snapshot zip of any content (hostile entries: sizes that lie,
 * names with "..", duplicate names, truncated data) reads as a host and its dumps, or is refused with an
 * IOException (not a zip, not a snapshot) or a MalformedException (netns.tsv, the rtnl captures). The
 * input is written to a file, since a snapshot is read from one. The committed inputs are in
 * SnapshotZipJazzerTestInputs/ (see its README).
 */
class SnapshotZipJazzerTest {
    /**
     * The zip file system's tables of the central directory, the 64 KiB capture buffer and at most one
     * record of PcapReader.MAX_RECORD, then the messages (as many bytes as the captures hold) and the
     * lines of netns.tsv.
     */
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(2 << 20, 256);

    private static Path file;

    @BeforeAll
    static void file() throws IOException {
        file = Files.createTempFile("cmdx-snapshot-fuzz", ".zip");
    }

    @AfterAll
    static void removeFile() throws IOException {
        Files.deleteIfExists(file);
    }

    @FuzzTest
    void anyZipReadsAsASnapshotOrIsRefused(byte[] zip) throws Exception {
        Files.write(file, zip);
        SnapshotFile.Contents[] read = new SnapshotFile.Contents[1];
        Exception e = DecoderContract.check(
                zip.length, BUDGET, () -> read[0] = readAndUnmount(file), IOException.class, MalformedException.class);
        if (e == null) {
            assertThat(read[0].dumps()).anyMatch(d -> d.id().equals(read[0].host()));
        }
    }

    private static SnapshotFile.Contents readAndUnmount(Path file) throws IOException, MalformedException {
        SnapshotFile.Contents c = SnapshotFile.read(file);
        if (c.root().getFileSystem() != FileSystems.getDefault()) {
            c.root().getFileSystem().close();
        }
        return c;
    }
}
