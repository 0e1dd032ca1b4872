package io.cmdemux.cli;

import io.cmdemux.namespaces.TopologySnapshot;
import java.nio.file.Path;
import java.util.function.Supplier;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * A verb run inside the daemon for a one-shot `cmdemux` (the CLI message, {@link DaemonVerbs}): the state it
 * reads is the daemon's live topology instead of a dump of every namespace, and relative paths are the
 * caller's. What would read anything else (a file named on the command line, another sysfs) is refused
 * here, and the client runs the verb itself. Held per thread, since the daemon's workers run several.
 */
final class InDaemon {
    private static final ThreadLocal<InDaemon> CURRENT = new ThreadLocal<>();

    private final Supplier<TopologySnapshot> live;
    private final Path cwd;
    private String refused;

    InDaemon(Supplier<TopologySnapshot> live, Path cwd) {
        this.live = live;
        this.cwd = cwd;
    }

    /** Thrown where a verb cannot be answered in the daemon; the run's output is then thrown away. */
    static final class NotHere extends RuntimeException {
        NotHere(String why) {
            super(why, null, false, false);
        }
    }

    /** Runs {@code verb} on this thread with this context; returns its exit status. */
    int run(java.util.function.IntSupplier verb) {
        CURRENT.set(this);
        try {
            return verb.getAsInt();
        } finally {
            CURRENT.remove();
        }
    }

    /** Why the verb was not answered here, or null when it was. */
    String refused() {
        return refused;
    }

    /** The live topology when running in the daemon, else null (the caller dumps the host itself). */
    static TopologySnapshot topology() {
        InDaemon d = CURRENT.get();
        // Generation 1 and the scan's order, as a one-shot dump of the host has them.
        return d == null ? null : d.live.get().inScanOrder(1);
    }

    /** A path as the caller means it: relative ones from the caller's working directory. */
    static Path path(String s) {
        InDaemon d = CURRENT.get();
        return d == null ? Path.of(s) : d.cwd.resolve(s);
    }

    /**
     * Before the verb runs: any option that names a file or directory makes it the one-shot run's. Those read
     * files (a snapshot, a lab recording, another sysfs, a pods directory), not the live host that the daemon
     * knows, and the daemon runs as root.
     */
    static void checkParsed(ParseResult parsed) {
        InDaemon d = CURRENT.get();
        if (d == null) {
            return;
        }
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            for (OptionSpec o : p.matchedOptions()) {
                if (Path.class.equals(o.type()) || java.io.File.class.equals(o.type())) {
                    throw d.refuse(o.longestName() + " names a file: the one-shot run reads it");
                }
            }
        }
    }

    private NotHere refuse(String why) {
        refused = why;
        return new NotHere(why);
    }
}
