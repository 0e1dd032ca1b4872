package io.cmdemux.cli;

import io.cmdemux.control.protocol.CliMessages;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameCodec;
import io.cmdemux.control.protocol.ProgramReply;
import io.cmdemux.control.protocol.ProtocolException;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Wire;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * The jar's entry point. A read verb first asks the running daemon (the CLI message on its host socket), which
 * runs it on the topology it already holds and answers with the output and exit status the one-shot run would
 * have given; a JVM that only sends argv and prints bytes starts in a fraction of the time that picocli and a
 * dump of every namespace take (issue 22, docs/PERFORMANCE.md). Anything else, and any verb the daemon does not
 * answer (no daemon, not root, a file named on the command line), runs here through {@link Main}.
 *
 * <p>CMDEMUX_VIA_DAEMON: {@code auto} (the default), {@code never} (always the one-shot run), or {@code always}
 * (exit 3 when the daemon does not answer, to check that it does). CMDEMUX_SOCKET: the daemon's control socket,
 * by default /run/cmdemux/cmdemux.sock.
 */
public final class Launcher {
    /** The verbs a daemon answers: they only read the live host (DaemonVerbs runs them). */
    /** A daemon that takes longer than this is treated as absent, and the verb runs here. */
    private static final long TIMEOUT_MILLIS = 10_000;

    private Launcher() {}

    public static void main(String[] args) throws IOException {
        String mode = System.getenv().getOrDefault("CMDEMUX_VIA_DAEMON", "auto");
        if (args.length > 0 && CliMessages.VERBS.contains(args[0]) && !mode.equals("never")) {
            String socket = System.getenv().getOrDefault("CMDEMUX_SOCKET", Wire.DEFAULT_HOST_SOCKET);
            ProgramReply r;
            try {
                r = ask(Path.of(socket), List.of(args));
            } catch (IOException | ProtocolException e) {
                if (mode.equals("always")) {
                    System.err.println("cmdemux: the daemon on " + socket + " did not answer: " + e.getMessage());
                    System.exit(ExitCode.ENVIRONMENT);
                }
                r = null;
            }
            if (r != null) {
                FileOutputStream out = new FileOutputStream(FileDescriptor.out);
                out.write(r.stdout());
                out.flush();
                FileOutputStream err = new FileOutputStream(FileDescriptor.err);
                err.write(r.stderr().getBytes(StandardCharsets.UTF_8));
                err.flush();
                System.exit(r.exitCode());
            }
        }
        if (args.length > 0 && args[0].equals("serve")) {
            io.cmdemux.daemon.Preload.begin(); // beside picocli's parse, on the other core
        }
        Main.main(args);
    }

    /**
     * One CLI message and its reply.
     *
     * @throws IOException no daemon, no permission, a closed connection or the timeout
     * @throws ProtocolException a refusal (its errno and text), an ERROR or a reply that does not decode
     */
    static ProgramReply ask(Path socket, List<String> args) throws IOException, ProtocolException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            Thread watchdog = new Thread(() -> {
                try {
                    Thread.sleep(TIMEOUT_MILLIS);
                    ch.close(); // the blocked read ends with AsynchronousCloseException
                } catch (InterruptedException | IOException e) {
                    // answered in time, or closed already
                }
            }, "cmdemux-daemon-timeout");
            watchdog.setDaemon(true);
            watchdog.start();
            ch.connect(UnixDomainSocketAddress.of(socket));
            ByteBuffer request = ByteBuffer.wrap(FrameCodec.encode(CliMessages.cliRequest(1, args)));
            while (request.hasRemaining()) {
                ch.write(request);
            }
            for (;;) {
                Frame f = FrameCodec.decode(readFrame(ch), Wire.MAX_REPLY_FRAME);
                if (f.type() == Wire.ERROR || f.type() == Wire.CLI && f.isReply() && f.seq() == 1) {
                    watchdog.interrupt();
                    if (f.type() == Wire.ERROR || f.status() != Wire.OK) {
                        throw new ProtocolException(f.status(), Wire.errnoName(f.status()) + ": "
                                + f.first(Wire.R_TEXT).map(Record::text).orElse(""));
                    }
                    return CliMessages.cliReply(f);
                }
            }
        }
    }

    private static byte[] readFrame(SocketChannel ch) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(Wire.HEADER_SIZE);
        fill(ch, header);
        long length = header.getInt(8) & 0xffffffffL;
        if (length < Wire.HEADER_SIZE || length > Wire.MAX_REPLY_FRAME) {
            throw new IOException("the daemon sent a frame of " + length + " bytes");
        }
        ByteBuffer frame = ByteBuffer.allocate((int) length);
        frame.put(header.flip());
        fill(ch, frame);
        return frame.array();
    }

    private static void fill(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new IOException("the daemon closed the connection");
            }
        }
    }
}
