package io.cmdemux.cli;

import io.cmdemux.gid.SysfsCollector;
import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.namespaces.SnapshotFile;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "snapshot", mixinStandardHelpOptions = true, description = "Save the host's state for a bug report.",
        subcommands = SnapshotCommand.Save.class)
final class SnapshotCommand {

    @Command(name = "save", mixinStandardHelpOptions = true,
            description = "Write every namespace's raw rtnetlink dumps and metadata to FILE"
                    + " (a zip that --snapshot reads).")
    static final class Save implements Callable<Integer> {
        @Mixin
        Terminal terminal = new Terminal();

        @Parameters(paramLabel = "FILE")
        Path file;

        @Option(names = "--sysfs-root", paramLabel = "DIR", description = "copy RDMA sysfs from DIR instead of /sys")
        Path sysfsRoot = SysfsLayout.LIVE_ROOT;

        @Override
        public Integer call() throws Exception {
            TopologySource.LiveDumps live = TopologySource.dumpLive();
            // The RDMA devices' sysfs tables (GIDs, P_Keys, IPoIB netdevs) go in as sysfs/ entries.
            Map<String, byte[]> sysfs = SysfsCollector.collect(SysfsLayout.live(sysfsRoot));
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                SnapshotFile.write(out, live.host(), live.dumps(), sysfs);
            }
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            int messages = live.dumps().stream().mapToInt(d -> d.messages().size()).sum();
            terminal.err().printf("saved %d namespaces, %d netlink messages, %d sysfs files to %s%n",
                    live.dumps().size(), messages, sysfs.size(), file);
            return ExitCode.OK;
        }
    }
}
