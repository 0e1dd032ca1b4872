package io.cmdemux.cli;

import io.cmdemux.gid.HostSnapshot;
import io.cmdemux.gid.SysfsLayout;
import java.io.IOException;
import java.nio.file.Path;
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
            HostSnapshot.Saved s;
            try {
                s = HostSnapshot.save(file, SysfsLayout.live(sysfsRoot));
            } catch (IOException e) {
                throw new EnvironmentException("snapshot save " + file + ": "
                        + TopologySource.withPrivilegeHint(e), e);
            }
            terminal.err().printf("saved %d namespaces, %d netlink messages, %d sysfs files to %s%n",
                    s.namespaces(), s.messages(), s.sysfsFiles(), file);
            return ExitCode.OK;
        }
    }
}
