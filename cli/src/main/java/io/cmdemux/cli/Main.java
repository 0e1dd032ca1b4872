package io.cmdemux.cli;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The one entry point: `cmdemux VERB ...`; its exit statuses are {@link ExitCode}'s. */
@Command(
        name = "cmdemux",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Which network namespace gets an RDMA CM connection request, and why.")
public final class Main {
    /**
     * The verbs, in the order `cmdemux --help` lists them. Not in the annotation: picocli reads every
     * subcommand's annotations by reflection when it builds the command line, which took a third of a
     * one-shot verb's start (some 160 of 570 ms), so a run builds only the verb it was asked for. The
     * names are written out, not read from each class's @Command, for the same reason (reading them
     * loaded all 14 classes with their nested commands and made an annotation proxy for each);
     * MainVerbsTest holds each name to its class's.
     */
    static final Map<String, Class<?>> VERBS = verbs(
            Map.entry("topology", TopologyCommand.class),
            Map.entry("snapshot", SnapshotCommand.class),
            Map.entry("decode", DecodeCommand.class),
            Map.entry("gids", GidsCommand.class),
            Map.entry("gid-index", GidIndexCommand.class),
            Map.entry("explain", ExplainCommand.class),
            Map.entry("replay", ReplayCommand.class),
            Map.entry("connect", ConnectCommand.class),
            Map.entry("listen", ListenCommand.class),
            Map.entry("serve", ServeCommand.class),
            Map.entry("lab-check", LabCheckCommand.class),
            Map.entry("path", PathCommand.class),
            Map.entry("cni", CniCommand.class),
            Map.entry("watch", WatchCommand.class));

    /** Makes the verbs; serve is handed this entry point, through which its daemon runs the verbs it answers. */
    private static final CommandLine.IFactory FACTORY = new CommandLine.IFactory() {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            return cls == ServeCommand.class ? cls.cast(new ServeCommand(Main::run))
                    : CommandLine.defaultFactory().create(cls);
        }
    };

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        // UTF-8 whatever the locale: JSON is UTF-8 (RFC 8259), and Java 17 would otherwise follow LANG=C into ASCII.
        java.nio.charset.Charset utf8 = java.nio.charset.StandardCharsets.UTF_8;
        java.io.PrintWriter out = new java.io.PrintWriter(new java.io.OutputStreamWriter(System.out, utf8), true);
        java.io.PrintWriter err = new java.io.PrintWriter(new java.io.OutputStreamWriter(System.err, utf8), true);
        try {
            return run(out, err, args);
        } finally {
            // Autoflush is println's only: what a verb print()s (the text tables, the pictures) would otherwise
            // still be in the writer when main calls System.exit.
            out.flush();
            err.flush();
        }
    }

    /** Runs with the given streams, so that tests can read what a command prints. */
    public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new Main(), FACTORY);
        Class<?> asked = args.length > 0 ? VERBS.get(args[0]) : null;
        if (asked != null) {
            cl.addSubcommand(args[0], asked);
        } else {
            VERBS.forEach(cl::addSubcommand); // help, a version, a mistyped verb: all of them
        }
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionStrategy(parsed -> {
            InDaemon.checkParsed(parsed); // in the daemon, a verb that would read a named file is not run
            return new CommandLine.RunLast().execute(parsed);
        });
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

    @SafeVarargs
    private static Map<String, Class<?>> verbs(Map.Entry<String, Class<?>>... verbs) {
        Map<String, Class<?>> m = new LinkedHashMap<>();
        for (Map.Entry<String, Class<?>> v : verbs) {
            m.put(v.getKey(), v.getValue());
        }
        return Collections.unmodifiableMap(m);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"cmdemux " + (v == null ? "dev" : v)};
        }
    }
}
