package io.cmdemux.cli;

import io.cmdemux.control.protocol.CliMessages;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameCodec;
import io.cmdemux.control.protocol.ProgramReply;
import io.cmdemux.control.protocol.Wire;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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

    public static void main(String[] args) throws Exception {
        askADaemon();
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
        loadTheDaemonsClasses();
        System.exit(0);
    }

    /**
     * The classes {@code serve} loads on its way to ready, which this run cannot start (it needs root and a soft
     * port's netdev): loaded by name from the list scripts/cds-serve-classes records off a real daemon, so that the
     * archive holds them too and the daemon's start does not parse and verify them (1.7-2.0 s to /readyz without
     * the archive, about 1.1 s with one of a daemon's own, docs/PERFORMANCE.md). A name the code no longer has is
     * passed over: a stale list costs start time, not correctness.
     */
    private static void loadTheDaemonsClasses() throws IOException {
        java.io.InputStream in = CdsTraining.class.getResourceAsStream("serve.classes");
        if (in == null) {
            return;
        }
        ClassLoader loader = CdsTraining.class.getClassLoader();
        try (java.io.BufferedReader r = new java.io.BufferedReader(
                new java.io.InputStreamReader(in, java.nio.charset.StandardCharsets.UTF_8))) {
            for (String name = r.readLine(); name != null; name = r.readLine()) {
                if (name.startsWith("#")) {
                    continue;
                }
                try {
                    Class.forName(name, false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    // gone from the code since the list was recorded
                }
            }
        }
    }

    /** The client's side of a verb the daemon answers (Launcher), against a stand-in that answers once. */
    private static void askADaemon() throws Exception {
        Path dir = Files.createTempDirectory("cmdemux-cds");
        Path socket = dir.resolve("s");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            Thread daemon = new Thread(() -> {
                try (SocketChannel c = server.accept()) {
                    Frame request = Frame.of(Wire.CLI, 1, List.of());
                    ByteBuffer reply = ByteBuffer.wrap(FrameCodec.encode(Frame.reply(request, Wire.OK,
                            CliMessages.cliReply(new ProgramReply(0, new byte[1], "")))));
                    c.read(ByteBuffer.allocate(Wire.MAX_REQUEST_FRAME));
                    while (reply.hasRemaining()) {
                        c.write(reply);
                    }
                } catch (IOException e) {
                    // the training's answer does not matter
                }
            });
            daemon.start();
            Launcher.ask(socket, List.of("topology"));
            daemon.join();
        } finally {
            Files.deleteIfExists(socket);
            Files.delete(dir);
        }
    }
}
