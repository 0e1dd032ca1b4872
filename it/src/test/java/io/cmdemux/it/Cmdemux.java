package io.cmdemux.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * `cmdemux ARGS` as a real process (optionally `ip netns exec NS`), on the test's own Java and
 * class path, with stdout and stderr in files so that a failure can show them.
 */
final class Cmdemux implements AutoCloseable {
    private final Process process;
    private final Path out;
    private final Path err;
    private final String what;

    private Cmdemux(Process process, Path out, Path err, String what) {
        this.process = process;
        this.out = out;
        this.err = err;
        this.what = what;
    }

    /** @param netns the namespace to run in, or null for the host */
    static Cmdemux start(Path dir, String netns, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (netns != null) {
            cmd.addAll(List.of("ip", "netns", "exec", netns));
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "io.cmdemux.cli.Main"));
        cmd.addAll(List.of(args));
        String tag = args[0] + "-" + Integer.toHexString(System.identityHashCode(cmd));
        Path out = dir.resolve(tag + ".out");
        Path err = dir.resolve(tag + ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        return new Cmdemux(p, out, err, String.join(" ", args) + (netns == null ? "" : " in " + netns));
    }

    /** Runs to the end and returns its exit code. */
    static Run run(Path dir, String netns, String... args) throws Exception {
        try (Cmdemux c = start(dir, netns, args)) {
            if (!c.process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("cmdemux " + c.what + " did not finish within 60 s; stderr:\n" + c.stderr());
            }
            return new Run(c.process.exitValue(), c.stdout(), c.stderr());
        }
    }

    record Run(int exit, String out, String err) {}

    /** Waits until stderr holds a match of {@code regex}; returns the match's first group. */
    String awaitStderr(String regex, long seconds) throws Exception {
        Pattern p = Pattern.compile(regex);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            Matcher m = p.matcher(stderr());
            if (m.find()) {
                return m.groupCount() > 0 ? m.group(1) : m.group();
            }
            if (!process.isAlive()) {
                throw new AssertionError("cmdemux " + what + " exited " + process.exitValue() + " before printing /"
                        + regex + "/; stderr:\n" + stderr());
            }
            Thread.sleep(100);
        }
        throw new AssertionError("cmdemux " + what + " did not print /" + regex + "/ within " + seconds
                + " s; stderr:\n" + stderr());
    }

    String stdout() throws IOException {
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    String stderr() throws IOException {
        return Files.readString(err, StandardCharsets.UTF_8);
    }

    /** SIGTERM (serve removes its nftables rule and sockets), then waits. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
