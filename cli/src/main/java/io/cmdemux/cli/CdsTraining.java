package io.cmdemux.cli;

import java.io.PrintWriter;
import java.io.Writer;

/**
 * The run that the build records a class-data-sharing archive of (cli/pom.xml, then
 * `-XX:SharedArchiveFile=cmdemux.jsa` in scripts/cmdemux): a one-shot verb spends most of its start
 * loading and verifying classes, and an archive made at the JVM's exit holds the classes a run loaded,
 * parsed and verified. So this loads what the one-shot verbs load: every verb's command line, and the
 * read verbs on whatever host the build runs on. Their answers, and whether they fail there, do not
 * matter: nothing is printed and the exit status is always 0.
 */
final class CdsTraining {
    private CdsTraining() {}

    public static void main(String[] args) {
        PrintWriter none = new PrintWriter(Writer.nullWriter());
        Main.run(none, none, "--help");
        for (String verb : Main.VERBS.keySet()) {
            Main.run(none, none, verb, "--help");
        }
        String self = "/proc/self/ns/net";
        String port = "soft0=lo:v1,v2";
        Main.run(none, none, "topology");
        Main.run(none, none, "topology", "--json");
        Main.run(none, none, "gids", "--rdma-port", port);
        Main.run(none, none, "gids", "--rdma-port", port, "--json");
        Main.run(none, none, "gid-index", "--rdma-port", port, "--netns", self, "--ip", "127.0.0.1");
        Main.run(none, none, "gid-index", "--rdma-port", port, "--netns", self, "--ip", "127.0.0.1", "--json");
        Main.run(none, none, "explain", "--rdma-port", port, "--dst", "127.0.0.1:7471", "--src", "127.0.0.1:40000");
        Main.run(none, none, "explain", "--rdma-port", port, "--dst", "127.0.0.1:7471", "--src", "127.0.0.1:40000",
                "--json");
        System.exit(0);
    }
}
