package io.cmdemux.netdev;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Compiles src/test/c/golden_links.c with gcc against the kernel's uapi headers, runs it once per
 * JVM, and serves its messages with the values the C side put into them. Nothing here is skipped:
 * a missing compiler or header fails the calling test with the package to install.
 */
final class GoldenMessages {
    private static final String INSTALL_HINT =
            "install the packages gcc, libc6-dev and linux-libc-dev "
                    + "(apt-get install -y gcc libc6-dev linux-libc-dev; .ci/run does)";
    private static List<Golden> cache;

    private GoldenMessages() {}

    /** One message: its class (link, addr, route, nsid, error, request), name, bytes and expected values. */
    record Golden(String kind, String name, byte[] bytes, Map<String, String> values) {
        Expect expect() {
            return new Expect(name, values);
        }
    }

    /** The expected values of one message; every key must be looked at once. */
    static final class Expect {
        private final String name;
        private final Map<String, String> values;
        private final Set<String> unchecked;

        Expect(String name, Map<String, String> values) {
            this.name = name;
            this.values = values;
            this.unchecked = new TreeSet<>(values.keySet());
        }

        String s(String key) {
            String v = values.get(key);
            if (v == null) {
                throw new AssertionError(
                        name + ": golden_links.c printed no value for " + key + " (has " + values.keySet() + ")");
            }
            unchecked.remove(key);
            return v;
        }

        boolean absent(String key) {
            return "-".equals(s(key));
        }

        int i(String key) {
            String v = s(key);
            return v.startsWith("0x") ? Integer.parseUnsignedInt(v.substring(2), 16) : (int) Long.parseLong(v);
        }

        /** Fails if the C side printed a value that no assertion looked at. */
        void assertAllChecked() {
            if (!unchecked.isEmpty()) {
                throw new AssertionError(name + ": values printed by golden_links.c but not checked: " + unchecked);
            }
        }
    }

    static synchronized List<Golden> all() {
        if (cache == null) {
            cache = List.copyOf(compileAndRun());
        }
        return cache;
    }

    static Golden get(String name) {
        return all().stream().filter(g -> g.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("golden_links.c emitted no message named " + name));
    }

    static List<Golden> ofKind(String kind) {
        return all().stream().filter(g -> g.kind().equals(kind)).collect(Collectors.toList());
    }

    private static Path source() {
        Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
        Path src = base.resolve("src/test/c/golden_links.c");
        if (!Files.isRegularFile(src)) {
            throw new AssertionError(
                    "golden C source not found at " + src.toAbsolutePath() + " (run the tests from the netdev module)");
        }
        return src;
    }

    private static List<Golden> compileAndRun() {
        try {
            Path dir = Files.createTempDirectory("cmdemux-golden-");
            dir.toFile().deleteOnExit();
            Path exe = dir.resolve("golden_links");
            Result cc = run(
                    List.of("gcc", "-std=gnu11", "-O0", "-Wall", "-Wextra", "-Werror", "-o", exe.toString(),
                            source().toString()),
                    "gcc");
            if (cc.exit != 0) {
                throw new AssertionError("gcc could not build golden_links.c (exit " + cc.exit + "); " + INSTALL_HINT
                        + ":\n" + cc.stderr);
            }
            exe.toFile().deleteOnExit();
            Result out = run(List.of(exe.toString()), "golden_links");
            if (out.exit != 0) {
                throw new AssertionError("golden_links exited with " + out.exit + ":\n" + out.stderr);
            }
            return parse(out.stdout);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Result(int exit, String stdout, String stderr) {}

    private static Result run(List<String> command, String what) throws IOException {
        Process p;
        try {
            p = new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new AssertionError(what + " could not be started (" + e.getMessage() + "); " + INSTALL_HINT, e);
        }
        p.getOutputStream().close();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
        String out = readAll(p.getInputStream());
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(what + " did not finish within 120 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + what, e);
        }
        return new Result(p.exitValue(), out, err.join());
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

    static List<Golden> parse(String stdout) {
        List<Golden> out = new ArrayList<>();
        for (String line : stdout.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f.length != 4) {
                throw new AssertionError("golden_links.c line has " + f.length + " fields, not 4: " + line);
            }
            Map<String, String> values = new LinkedHashMap<>();
            for (String kv : f[3].trim().split(" ")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new AssertionError("not key=value: " + kv + " in " + line);
                }
                values.put(kv.substring(0, eq), kv.substring(eq + 1).replace("%20", " "));
            }
            out.add(new Golden(f[0], f[1], HexFormat.of().parseHex(f[2]), values));
        }
        if (out.isEmpty()) {
            throw new AssertionError("golden_links printed no messages");
        }
        return out;
    }
}
