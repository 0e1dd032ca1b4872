package io.cmdemux.gid;

import io.cmdemux.namespaces.LiveDumper;
import io.cmdemux.namespaces.SnapshotFile;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/**
 * The host's state for a bug report, as a file that `--snapshot` reads back: every namespace's raw rtnetlink
 * dumps and the RDMA devices' sysfs tables (GIDs, P_Keys, IPoIB netdevs). `cmdemux snapshot save` writes one;
 * so does the daemon's observer when cmdemux's kernel mode and the kernel disagree.
 */
public final class HostSnapshot {
    private HostSnapshot() {}

    /** What went into a file. */
    public record Saved(Path file, int namespaces, int messages, int sysfsFiles) {}

    /** Writes the file whole or not at all: into a temporary file beside it, then renamed over it. */
    public static Saved save(Path file, SysfsLayout sysfsFrom) throws IOException {
        LiveDumper.HostDumps live = LiveDumper.dumpHost();
        Map<String, byte[]> sysfs = SysfsCollector.collect(sysfsFrom);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            SnapshotFile.write(out, live.host(), live.dumps(), sysfs);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        int messages = live.dumps().stream().mapToInt(d -> d.messages().size()).sum();
        return new Saved(file, live.dumps().size(), messages, sysfs.size());
    }
}
