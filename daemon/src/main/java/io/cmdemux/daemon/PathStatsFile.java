package io.cmdemux.daemon;

import io.cmdemux.pathrecord.PathRecordService;
import io.cmdemux.render.PathView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The path-record service's stats JSON, for `cmdemux path stats`: written whole, then renamed, so a
 * reader never sees half of it.
 */
public final class PathStatsFile {
    private PathStatsFile() {}

    public static void write(Path file, PathRecordService service) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, PathView.JSON.writeValueAsString(PathView.statsJson(service)));
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
