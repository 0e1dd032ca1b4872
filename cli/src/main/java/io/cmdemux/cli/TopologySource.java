package io.cmdemux.cli;

import io.cmdemux.namespaces.LiveDumper;
import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.MalformedException;
import java.io.IOException;
import java.nio.file.Path;

/** Where a read verb gets its state: the live host, or a snapshot file / fixture directory. */
final class TopologySource {
    private TopologySource() {}

    /** Raw dumps plus the host identity, from the live kernel. */
    static LiveDumper.HostDumps dumpLive() {
        try {
            return LiveDumper.dumpHost();
        } catch (IOException e) {
            throw new EnvironmentException("reading the live topology failed: " + withPrivilegeHint(e), e);
        }
    }

    /** The message of a failed read of every namespace, with what is missing when setns was refused. */
    static String withPrivilegeHint(IOException e) {
        return e.getMessage() + (e.getMessage() != null && e.getMessage().contains("EPERM")
                ? " (cmdemux needs root: CAP_SYS_ADMIN for setns)" : "");
    }

    static TopologySnapshot load(Path snapshot) {
        return loadWithRoot(snapshot).topology();
    }

    /** A topology and, for a snapshot file, the root of its other entries (null for the live host). */
    record Loaded(TopologySnapshot topology, Path root) {}

    static Loaded loadWithRoot(Path snapshot) {
        if (snapshot == null) {
            TopologySnapshot daemons = InDaemon.topology();
            if (daemons != null) {
                return new Loaded(daemons, null);
            }
            LiveDumper.HostDumps live = dumpLive();
            return new Loaded(TopologySnapshot.build(1, live.host(), live.dumps()), null);
        }
        try {
            SnapshotFile.Contents c = SnapshotFile.read(snapshot);
            return new Loaded(TopologySnapshot.build(1, c.host(), c.dumps()), c.root());
        } catch (IOException e) {
            throw new EnvironmentException(e.getMessage(), e);
        } catch (MalformedException e) {
            throw new EnvironmentException(snapshot + ": " + e.getMessage(), e);
        }
    }
}
