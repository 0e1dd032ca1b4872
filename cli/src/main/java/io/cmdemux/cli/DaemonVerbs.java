package io.cmdemux.cli;

import io.cmdemux.control.protocol.CliMessages;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.ProgramReply;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.control.server.CliHandler;
import io.cmdemux.namespaces.TopologySnapshot;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * The daemon's answer to CLI (docs/PROTOCOL.md §4.2): the read verbs run here, on the daemon's live topology
 * instead of a dump of every namespace, through the same code as the one-shot run, so that what they print and
 * their exit status are byte for byte the one-shot run's (ViaDaemonAsRootTest holds the two to that).
 */
final class DaemonVerbs implements CliHandler {
    /** The one-shot entry point, {@code Main.run}, handed down by it (a verb runs here exactly as there). */
    @FunctionalInterface
    interface Program {
        int run(PrintWriter out, PrintWriter err, String... args);
    }

    private final Supplier<TopologySnapshot> live;
    private final Path proc;
    private final Program program;

    DaemonVerbs(Supplier<TopologySnapshot> live, Path proc, Program program) {
        this.live = live;
        this.proc = proc;
        this.program = program;
    }

    @Override
    public ProgramReply run(List<String> args, ConsumerInfo caller) throws RequestRefused {
        if (!CliMessages.VERBS.contains(args.get(0))) {
            throw new RequestRefused(Wire.EOPNOTSUPP, "the daemon answers only "
                    + String.join(", ", CliMessages.VERBS.stream().sorted().toList()) + ", not " + args.get(0));
        }
        InDaemon in = new InDaemon(live, callersDirectory(caller.pid()));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = in.run(() -> program.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new)));
        if (in.refused() != null) {
            throw new RequestRefused(Wire.EOPNOTSUPP, in.refused());
        }
        return new ProgramReply(status & 0xff, out.toString().getBytes(StandardCharsets.UTF_8), err.toString());
    }

    /**
     * The caller's working directory, for its relative paths; it must see the files and processes the daemon
     * sees (the same mount and PID namespaces and root), or its paths and PIDs would name other things here.
     * All of it from the kernel (the pid is SO_PEERCRED's), none from the message.
     */
    private Path callersDirectory(int pid) throws RequestRefused {
        if (pid <= 0) {
            throw new RequestRefused(Wire.EOPNOTSUPP, "the caller's process is not known");
        }
        Path them = proc.resolve(Integer.toString(pid));
        Path self = proc.resolve("self");
        try {
            for (String link : List.of("ns/mnt", "ns/pid", "root")) {
                if (!Files.readSymbolicLink(them.resolve(link)).equals(Files.readSymbolicLink(self.resolve(link)))) {
                    throw new RequestRefused(Wire.EOPNOTSUPP, "the caller's " + link
                            + " is not the daemon's: its paths and PIDs would mean other things here");
                }
            }
            return Files.readSymbolicLink(them.resolve("cwd"));
        } catch (IOException e) {
            throw new RequestRefused(Wire.EOPNOTSUPP, "cannot read the caller's process " + pid + ": " + e);
        }
    }

    /**
     * Runs each verb some times, with nothing printed, so that the first client's answer neither loads their
     * classes nor runs picocli's model building in the interpreter.
     */
    void warmUp(int rounds) {
        InDaemon in = new InDaemon(live, Path.of("/"));
        PrintWriter none = new PrintWriter(Writer.nullWriter());
        for (int i = 0; i < rounds; i++) {
            warmUpOnce(in, none);
        }
    }

    private void warmUpOnce(InDaemon in, PrintWriter none) {
        for (String[] args : List.of(new String[] {"topology"}, new String[] {"topology", "--json"},
                new String[] {"gids"}, new String[] {"gids", "--json"}, new String[] {"gid-index", "--help"},
                new String[] {"explain", "--dst", "127.0.0.1:1", "--json"})) {
            in.run(() -> program.run(none, none, args));
        }
    }
}
