package io.cmdemux.netdev;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Running ip (package iproute2) and the in-namespace dumper for the tests that need root. */
final class Iproute2 {
    private Iproute2() {}

    /** One raw message from {@link RawDumpMain}: "link", "addr" or "route", and its bytes. */
    record Raw(String what, byte[] bytes) {}

    static void requireRootAndIproute2() throws IOException {
        String uid = run("id", "-u").trim();
        if (!uid.equals("0")) {
            throw new AssertionError("this test creates network namespaces and must run as root (uid " + uid + ")");
        }
        try {
            run("ip", "-V");
        } catch (AssertionError e) {
            throw new AssertionError(
                    "ip not runnable; install the package iproute2 (apt-get install -y iproute2): " + e.getMessage(),
                    e);
        }
    }

    /** ip -n NS ARGS... */
    static String ip(String ns, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "-n", ns));
        cmd.addAll(List.of(args));
        return run(cmd.toArray(new String[0]));
    }

    /**
     * The kernel's own dump messages from inside namespace {@code ns}, taken by a child JVM that
     * {@code ip netns exec} starts there ({@link RawDumpMain}); entering a namespace from this JVM
     * would need setns, which belongs to the namespaces module.
     */
    static List<Raw> rawDump(String ns, String... what) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), RawDumpMain.class.getName()));
        cmd.addAll(List.of(what));
        List<Raw> out = new ArrayList<>();
        for (String line : run(cmd.toArray(new String[0])).split("\n")) {
            if (!line.isBlank()) {
                String[] f = line.split("\t");
                out.add(new Raw(f[0], HexFormat.of().parseHex(f[1])));
            }
        }
        return out;
    }

    /** Runs a command; fails with its stderr when it cannot start or exits non-zero. */
    static String run(String... cmd) throws IOException {
        Process p;
        try {
            p = new ProcessBuilder(cmd).start();
        } catch (IOException e) {
            throw new AssertionError(cmd[0] + " could not be started: " + e.getMessage(), e);
        }
        p.getOutputStream().close();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
        String out = readAll(p.getInputStream());
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", cmd) + " did not finish within 120 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        if (p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", cmd) + " exited with " + p.exitValue() + ": " + err.join());
        }
        return out;
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
}
