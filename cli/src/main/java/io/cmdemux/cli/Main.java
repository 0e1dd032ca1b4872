package io.cmdemux.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The one entry point: `cmdemux VERB ...`; its exit statuses are {@link ExitCode}'s. */
@Command(
        name = "cmdemux",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Which network namespace gets an RDMA CM connection request, and why.",
        subcommands = {TopologyCommand.class, SnapshotCommand.class, DecodeCommand.class, GidsCommand.class, GidIndexCommand.class,
            ExplainCommand.class, ReplayCommand.class, ConnectCommand.class, ListenCommand.class, ServeCommand.class,
            LabCheckCommand.class, PathCommand.class, CniCommand.class, WatchCommand.class})
public final class Main {
    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        // UTF-8 whatever the locale: JSON is UTF-8 (RFC 8259), and Java 17 would otherwise follow LANG=C into ASCII.
        return run(new java.io.PrintWriter(new java.io.OutputStreamWriter(System.out, java.nio.charset.StandardCharsets.UTF_8), true),
                new java.io.PrintWriter(new java.io.OutputStreamWriter(System.err, java.nio.charset.StandardCharsets.UTF_8), true), args);
    }

    /** Runs with the given streams, so that tests can read what a command prints. */
    public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof EnvironmentException || ex instanceof java.io.IOException) {
                cmd.getErr().println("cmdemux: " + ex.getMessage());
                return ExitCode.ENVIRONMENT;
            }
            if (ex instanceof java.io.UncheckedIOException u) {
                cmd.getErr().println("cmdemux: " + u.getCause().getMessage());
                return ExitCode.ENVIRONMENT;
            }
            if (ex instanceof IllegalArgumentException) {
                cmd.getErr().println("cmdemux: " + ex.getMessage());
                return ExitCode.USAGE;
            }
            throw ex;
        });
        return cl.execute(args);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"cmdemux " + (v == null ? "dev" : v)};
        }
    }
}
