package io.cmdemux.namespaces;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.netdev.MalformedException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshot zips that SnapshotFile refuses, with its typed errors, and are not left mounted. */
class SnapshotFileRefusalTest {

    /** Found by Jazzer (issue 20): SnapshotZipJazzerTestInputs/.../crash-aa47df287180af91a4c811188e3a7f390a392ccc. */
    @Test
    void aNamespaceNameWithANulIsMalformedNotAnInvalidPath(@TempDir Path dir) throws Exception {
        Path zip = dir.resolve("nul-in-name.zip");
        try (OutputStream out = Files.newOutputStream(zip); ZipOutputStream z = new ZipOutputStream(out)) {
            z.putNextEntry(new ZipEntry(SnapshotFile.NETNS_TSV));
            z.write("init\t4026531833\t-\npod\u00001\t4026532249\t1\n".getBytes(StandardCharsets.UTF_8));
            z.closeEntry();
        }
        assertThatThrownBy(() -> SnapshotFile.read(zip)).isInstanceOf(MalformedException.class)
                .hasMessageContaining("line 2: bad namespace name");
    }

    @Test
    void aZipWithoutNetnsTsvIsRefusedAndNotLeftOpen(@TempDir Path dir) throws Exception {
        Path zip = dir.resolve("not-a-snapshot.zip");
        try (OutputStream out = Files.newOutputStream(zip); ZipOutputStream z = new ZipOutputStream(out)) {
            z.putNextEntry(new ZipEntry("rtnl/init.pcap"));
            z.closeEntry();
        }
        for (int i = 0; i < 20; i++) {
            assertThatThrownBy(() -> SnapshotFile.read(zip))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("not a snapshot");
        }
        // Each refused read used to keep its zip file system, and so the file, open until the JVM exited.
        assertThat(descriptorsOpenOn(zip)).isEmpty();
    }

    /** This process's file descriptors (Linux /proc) that point at {@code file}. */
    private static List<Path> descriptorsOpenOn(Path file) throws IOException {
        Path real = file.toRealPath();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(real);
                } catch (IOException e) {
                    return false; // the descriptor of the listing itself, closed by now
                }
            }).toList();
        }
    }
    @Test
    void aZipWhoseCentralDirectoryBreaksTheJdksReaderIsRefusedWithAnIoException(@TempDir Path dir) throws Exception {
        // the reproducer of the 2026-12-02 campaign: the JDK's zip file system threw
        // ArrayIndexOutOfBoundsException ("arraycopy: length -1 is negative") on it
        Path zip = dir.resolve("hostile.zip");
        try (var in = getClass().getResourceAsStream("SnapshotZipJazzerTestInputs/anyZipReadsAsASnapshotOrIsRefused/"
                + "crash-ed5e1d48d8dc9f5dfcfb23442b8c481edc26d6f7")) {
            Files.write(zip, in.readAllBytes());
        }
        assertThatThrownBy(() -> SnapshotFile.read(zip)).isInstanceOf(IOException.class)
                .hasMessageContaining("not a readable zip");
    }
}
