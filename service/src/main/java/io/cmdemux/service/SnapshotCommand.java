package io.cmdemux.service;

import io.cmdemux.namespaces.SnapshotFile;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "snapshot", mixinStandardHelpOptions = true, description = "Save the host's state for a bug report.",
        subcommands = SnapshotCommand.Save.class)
final class SnapshotCommand {

    @Command(name = "save", mixinStandardHelpOptions = true,
            description = "Write every namespace's raw rtnetlink dumps and metadata to FILE (a zip that --snapshot reads).")
    static final class Save implements Callable<Integer> {
        @Parameters(paramLabel = "FILE")
        Path file;

        @Override
        public Integer call() throws Exception {
            TopologySource.LiveDumps live = TopologySource.dumpLive();
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                SnapshotFile.write(out, live.host(), live.dumps(), Map.of());
            }
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            int messages = live.dumps().stream().mapToInt(d -> d.messages().size()).sum();
            System.err.printf("saved %d namespaces, %d netlink messages to %s%n", live.dumps().size(), messages, file);
            return Main.EXIT_OK;
        }
    }
}
