package io.cmdemux.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** Where the RDMA state of a read verb comes from; a picocli mixin shared by the read verbs. */
final class RdmaOptions {
    @Option(names = "--snapshot", paramLabel = "FILE",
            description = "read a snapshot file or fixture directory instead of the live host")
    Path snapshot;

    @Option(names = "--rdma-port", paramLabel = "NAME=NETDEV[@NETNS][:v1,v2]",
            description = "define a soft RoCE port (device NAME, port 1) on NETDEV;"
            + " its GID table is computed by the kernel's"
                    + " roce_gid_mgmt rules; GID types RoCE v2 only unless :v1,v2 is given. Repeatable.")
    List<String> rdmaPorts = new ArrayList<>();

    @Option(names = "--sysfs-root", paramLabel = "DIR",
            description = "read RDMA devices from DIR/class/infiniband, DIR/class/net and DIR/module instead of /sys"
                    + " (a copy of /sys, a fixture tree)")
    Path sysfsRoot;
}
