package io.cmdemux.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.namespaces.testkit.Host;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * `ip netns exec NS java ... cmdemux listen ARGS` as a real process in a namespace, with its
 * stdout lines queued and its stderr kept for failure messages.
 */
final class ListenProcess {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String EOF = "\u0000eof";

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuffer stderr = new StringBuffer();

    private ListenProcess(Process p) {
        this.process = p;
        pump(p.getInputStream(), line -> lines.add(line), () -> lines.add(EOF));
        pump(p.getErrorStream(), line -> stderr.append(line).append('\n'), () -> { });
    }

    /** @param ns the namespace to run in, or null for the host */
    static ListenProcess start(String ns, String... args) throws IOException {
        Host.requireCommand("ip", "iproute2");
        List<String> cmd = new ArrayList<>();
        if (ns != null) {
            cmd.addAll(List.of("ip", "netns", "exec", ns));
        }
        // the same Java as the test
        cmd.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        cmd.add("io.cmdemux.cli.Main");
        cmd.add("listen");
        cmd.addAll(List.of(args));
        return new ListenProcess(new ProcessBuilder(cmd).start());
    }

    private static void pump(InputStream in, java.util.function.Consumer<String> sink, Runnable end) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    sink.accept(line);
                }
            } catch (IOException e) {
                sink.accept("(stream failed: " + e.getMessage() + ")");
            } finally {
                end.run();
            }
        }, "listen-process-pump");
        t.setDaemon(true);
        t.start();
    }

    /** The next stdout line as JSON; fails with the process's stderr when none comes within 20 s. */
    JsonNode nextJson() throws IOException, InterruptedException {
        String line = lines.poll(20, TimeUnit.SECONDS);
        if (line == null || line.equals(EOF)) {
            if (line != null) {
                lines.add(EOF);
            }
            throw new AssertionError("`cmdemux listen` printed no line"
                    + (process.isAlive() ? "" : " and exited " + process.exitValue())
                    + "; stderr:\n" + stderr);
        }
        return JSON.readTree(line);
    }

    /**
     * SIGTERM, then the exit status. Process.destroy() would also close our end of its stdout, losing the last lines.
     */
    int stop() throws InterruptedException {
        Host.run("kill", "-TERM", Long.toString(process.pid()));
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("`cmdemux listen` ignored SIGTERM for 15 s; stderr:\n" + stderr);
        }
        return process.exitValue();
    }

    int waitFor() throws InterruptedException {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("`cmdemux listen` did not exit; stderr:\n" + stderr);
        }
        return process.exitValue();
    }

    String stderr() {
        return stderr.toString();
    }
}
