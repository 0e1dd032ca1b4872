package io.cmdemux.service;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The one entry point: `cmdemux VERB ...`. Exit codes: 0 ok, 1 "the answer is no", 2 usage, 3 environment. */
@Command(
        name = "cmdemux",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Which network namespace gets an RDMA CM connection request, and why.",
        subcommands = {TopologyCommand.class, SnapshotCommand.class, DecodeCommand.class, GidsCommand.class, GidIndexCommand.class,
            ExplainCommand.class, ReplayCommand.class, ConnectCommand.class, ListenCommand.class, ServeCommand.class,
            LabCheckCommand.class, PathCommand.class, CniCommand.class})
public final class Main {
    public static final int EXIT_OK = 0;
    public static final int EXIT_NO = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_ENVIRONMENT = 3;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        return run(new java.io.PrintWriter(System.out, true), new java.io.PrintWriter(System.err, true), args);
    }

    /** Runs with the given streams, so that tests can read what a command prints. */
    public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof EnvironmentException || ex instanceof java.io.IOException) {
                cmd.getErr().println("cmdemux: " + ex.getMessage());
                return EXIT_ENVIRONMENT;
            }
            if (ex instanceof IllegalArgumentException) {
                cmd.getErr().println("cmdemux: " + ex.getMessage());
                return EXIT_USAGE;
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
