package io.cmdemux.pathrecord.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Compiles the C oracles of src/test/c with gcc against the uapi headers (once per JVM) and runs
 * them. A missing compiler or header fails the calling test with the packages to install.
 */
public final class CPrograms {
    public static final String INSTALL_HINT =
            "install the Debian packages gcc, libc6-dev and linux-libc-dev "
                    + "(apt-get install -y gcc libc6-dev linux-libc-dev; .ci/run does)";
    private static final Map<String, Path> BUILT = new HashMap<>();

    private CPrograms() {}

    /** The executable built from src/test/c/NAME.c of the pathrecord module. */
    public static synchronized Path build(String name) {
        Path exe = BUILT.get(name);
        if (exe != null) {
            return exe;
        }
        Path src = source(name);
        try {
            Path dir = Files.createTempDirectory("cmdemux-c-");
            dir.toFile().deleteOnExit();
            exe = dir.resolve(name);
            Result cc = run(
                    List.of("gcc", "-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror", "-o", exe.toString(),
                            src.toString()),
                    "", "gcc");
            if (cc.exit() != 0) {
                throw new AssertionError("gcc could not build " + src.getFileName() + " (exit " + cc.exit() + "); "
                        + INSTALL_HINT + ":\n" + cc.stderr());
            }
            exe.toFile().deleteOnExit();
            BUILT.put(name, exe);
            return exe;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Locates src/test/c/NAME.c from this module or from a module next to it (service's tests use them too). */
    public static Path source(String name) {
        Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
        for (Path p : List.of(
                base.resolve("src/test/c/" + name + ".c"), base.resolve("../pathrecord/src/test/c/" + name + ".c"))) {
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        throw new AssertionError(
                "C oracle source " + name + ".c not found under " + base.toAbsolutePath() + " (pathrecord/src/test/c)");
    }

    public record Result(int exit, String stdout, String stderr) {}

    public static Result run(List<String> command, String stdin, String what) {
        Process p;
        try {
            p = new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new AssertionError(what + " could not be started (" + e.getMessage() + "); " + INSTALL_HINT, e);
        }
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
        try (var in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(what + " did not finish within 120 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + what, e);
        }
        return new Result(p.exitValue(), out.join(), err.join());
    }

    private static String readAll(InputStream in) {
        try (in) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            in.transferTo(b);
            return b.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Splits "k=v k=v" into a map; %20 in values stands for a space. */
    public static Map<String, String> keyValues(String line) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (String kv : line.trim().split(" ")) {
            if (kv.isEmpty()) {
                continue;
            }
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new AssertionError("not key=value: '" + kv + "' in " + line);
            }
            m.put(kv.substring(0, eq), kv.substring(eq + 1).replace("%20", " "));
        }
        return m;
    }

    public static List<String> lines(String s) {
        List<String> out = new ArrayList<>();
        for (String l : s.split("\n")) {
            if (!l.isBlank()) {
                out.add(l);
            }
        }
        return out;
    }
}
