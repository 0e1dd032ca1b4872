package io.cmdemux.namespaces.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What tests need from the machine: root, commands from Debian packages, and a shell. Every
 * missing prerequisite fails the test with the package to install; nothing is skipped.
 */
public final class Host {
    private Host() {}

    /** Fails unless we run as root (netns, veth and setns need it). */
    public static void requireRoot() {
        String uid;
        try {
            uid = Files.readString(Path.of("/proc/self/status")).lines()
                    .filter(l -> l.startsWith("Uid:")).findFirst().orElse("Uid: ?").split("\\s+")[1];
        } catch (IOException e) {
            throw new AssertionError("cannot read /proc/self/status to check for root", e);
        }
        if (!uid.equals("0")) {
            throw new AssertionError(
                    "this test needs root (it creates network namespaces and links); "
                            + "run it as root, e.g. sudo mvn verify");
        }
    }

    /** Fails unless {@code command} is on the PATH, naming the Debian package that provides it. */
    public static void requireCommand(String command, String debianPackage) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return;
            }
        }
        for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return;
            }
        }
        throw new AssertionError("this test needs `" + command + "`: install the Debian package " + debianPackage
                + " (apt-get install -y " + debianPackage + "; .ci/run does this)");
    }

    /** Runs a command, returns stdout; fails with stderr on a non-zero exit. */
    public static String sh(String... argv) {
        Result r = run(argv);
        if (r.exit() != 0) {
            throw new AssertionError("`" + String.join(" ", argv) + "` exited " + r.exit() + ": " + r.stderr().strip());
        }
        return r.stdout();
    }

    /** Runs {@code bash -c script}. */
    public static String bash(String script) {
        return sh("bash", "-c", script);
    }

    public record Result(int exit, String stdout, String stderr) {}

    public static Result run(String... argv) {
        try {
            Path out = Files.createTempFile("cmdx-sh", ".out");
            Path err = Files.createTempFile("cmdx-sh", ".err");
            try {
                Process p = new ProcessBuilder(new ArrayList<>(List.of(argv)))
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError("`" + String.join(" ", argv) + "` did not finish within 120 s");
                }
                return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot run `" + String.join(" ", argv) + "`: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted running " + String.join(" ", argv), e);
        }
    }
}
