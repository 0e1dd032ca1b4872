package io.cmdemux.pathrecord.testkit;

import io.cmdemux.gid.Gid;
import io.cmdemux.namespaces.testkit.Host;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real Subnet Administrator without hardware (the outside programs tests check against): ibsim simulates hosts H1..Hn
 * on one switch, OpenSM runs on H1 under the umad2sim preload, and clients (saquery, our SA client
 * in its own small JVM) run as any host. One fabric per test class: ibsim never frees the slot of a
 * client that was killed, and it has only ten. Every command gets a time limit, because saquery
 * waits forever for an answer that needs RMPP, which ibsim lacks.
 */
public final class OpenSmFabric implements AutoCloseable {
    public static final String PRELOAD = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";
    public static final String DEVICE = "ibsim0";
    private static final Pattern FIELD = Pattern.compile("^\\s*(\\w+)\\.+(\\S+)\\s*$");

    private final Path dir;
    private final String sockName;
    private final Process ibsim;
    private final Process opensm;
    private final Map<String, Gid> gids = new LinkedHashMap<>();
    private final Map<String, Integer> lids = new LinkedHashMap<>();

    private OpenSmFabric(Path dir, String sockName, Process ibsim, Process opensm) {
        this.dir = dir;
        this.sockName = sockName;
        this.ibsim = ibsim;
        this.opensm = opensm;
    }

    /** Fails, naming the Debian package, unless ibsim, OpenSM, saquery and the preload library are installed. */
    public static void requirePackages() {
        Host.requireCommand("ibsim", "ibsim-utils");
        Host.requireCommand("opensm", "opensm");
        Host.requireCommand("saquery", "infiniband-diags");
        Host.requireCommand("ibstat", "infiniband-diags");
        Host.requireCommand("timeout", "coreutils");
        if (!Files.isRegularFile(Path.of(PRELOAD))) {
            throw new AssertionError(
                    "this test needs " + PRELOAD + ": install the Debian package ibsim-utils (.ci/run does)");
        }
        if (!Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibumad.so"))
                && !Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibumad.so.3"))) {
            throw new AssertionError(
                    "this test needs libibumad: install the Debian package libibumad-dev (.ci/run does)");
        }
    }

    /**
     * Starts ibsim with {@code hosts} HCAs and OpenSM on H1, and waits until the SA answers.
     *
     * @param lmc OpenSM's LMC: 0, or 1 and up to give every port 2^lmc LIDs (alternate paths)
     */
    public static OpenSmFabric start(int hosts, int lmc) {
        requirePackages();
        try {
            Path dir = Files.createTempDirectory("cmdemux-opensm-");
            StringBuilder net = new StringBuilder("Switch 8 \"S1\"\n");
            for (int h = 1; h <= hosts; h++) {
                net.append('[').append(h).append("] \"H").append(h).append("\"[1]\n");
            }
            for (int h = 1; h <= hosts; h++) {
                net.append("\nHca 1 \"H").append(h).append("\"\n[1] \"S1\"[").append(h).append("]\n");
            }
            Files.writeString(dir.resolve("net"), net.toString());
            String sock = "cmdx" + ProcessHandle.current().pid() + "x" + System.nanoTime() % 100000;
            ProcessBuilder ib = new ProcessBuilder("ibsim", "-s", "-n", "net")
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("ibsim.out").toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            ib.environment().put("IBSIM_SOCKNAME", sock);
            Process ibsim = ib.start();
            Thread.sleep(300);
            List<String> osmArgs = new ArrayList<>(List.of("opensm", "-f", dir.resolve("osm.log").toString()));
            if (lmc > 0) {
                osmArgs.addAll(List.of("-l", Integer.toString(lmc)));
            }
            ProcessBuilder osm = new ProcessBuilder(osmArgs).directory(dir.toFile())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("opensm.out").toFile());
            osm.environment().putAll(Map.of("IBSIM_SOCKNAME", sock, "SIM_HOST", "H1", "OSM_CACHE_DIR", dir.toString(),
                    "OSM_TMP_DIR", dir.toString(), "LD_PRELOAD", PRELOAD));
            Process opensm = osm.start();
            OpenSmFabric f = new OpenSmFabric(dir, sock, ibsim, opensm);
            try {
                f.learnPorts(hosts);
                f.awaitSa();
            } catch (RuntimeException | Error e) {
                f.close();
                throw e;
            }
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private void learnPorts(int hosts) {
        for (int h = 1; h <= hosts; h++) {
            String host = "H" + h;
            Host.Result r = run(host, 20, "ibstat", DEVICE, "1");
            Matcher g = Pattern.compile("Port GUID: 0x([0-9a-f]+)").matcher(r.stdout());
            if (r.exit() != 0 || !g.find()) {
                throw new AssertionError("ibstat on " + host + " failed (exit " + r.exit() + "): " + r.stdout()
                        + r.stderr() + "\n" + log());
            }
            gids.put(host, new Gid(0xfe80000000000000L, Long.parseUnsignedLong(g.group(1), 16)));
        }
    }

    private void awaitSa() throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String last = "";
        while (System.nanoTime() < end) {
            Host.Result r = run("H2", 10, "saquery", "-p", "--sgid-to-dgid", gid("H2") + "-" + gid("H1"));
            if (r.exit() == 0 && r.stdout().contains("dlid")) {
                Map<String, String> f = fields(r.stdout());
                if (!"0".equals(f.get("dlid"))) {
                    for (String h : gids.keySet()) {
                        lids.put(h, lidOf(h));
                    }
                    return;
                }
            }
            last = r.stdout() + r.stderr();
            Thread.sleep(300);
        }
        throw new AssertionError("OpenSM's SA did not answer within 30 s: " + last + "\n" + log());
    }

    private int lidOf(String host) {
        Host.Result r = run(host, 20, "ibstat", DEVICE, "1");
        Matcher m = Pattern.compile("Base lid: (\\d+)").matcher(r.stdout());
        if (!m.find()) {
            throw new AssertionError("no base LID for " + host + ": " + r.stdout());
        }
        return Integer.parseInt(m.group(1));
    }

    public Path dir() {
        return dir;
    }

    public String sockName() {
        return sockName;
    }

    /** The port GID of host H<i>: fe80:: + its port GUID. */
    public Gid gid(String host) {
        Gid g = gids.get(host);
        if (g == null) {
            throw new IllegalArgumentException("no host " + host + " in this fabric (" + gids.keySet() + ")");
        }
        return g;
    }

    public int lid(String host) {
        return lids.get(host);
    }

    public List<String> hosts() {
        return List.copyOf(gids.keySet());
    }

    /** The environment a client process needs to be {@code host} on this fabric. */
    public Map<String, String> env(String host) {
        return Map.of("IBSIM_SOCKNAME", sockName, "SIM_HOST", host, "LD_PRELOAD", PRELOAD);
    }

    /**
     * Runs argv as {@code host} under the preload, with at most 1024 descriptors (umad2sim takes over
     * every fd from 1024 up) and a time limit; inside the fabric's directory, where umad2sim writes sys-PID.
     */
    public Host.Result run(String host, int seconds, String... argv) {
        List<String> cmd = new ArrayList<>(
                List.of("bash", "-c", "ulimit -n 1024; exec timeout -k 2 " + seconds + " \"$@\"", "fabric-client"));
        cmd.addAll(List.of(argv));
        try {
            Path out = Files.createTempFile(dir, "out", ".txt");
            Path err = Files.createTempFile(dir, "err", ".txt");
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            pb.environment().putAll(env(host));
            Process p = pb.start();
            if (!p.waitFor(seconds + 10L, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            Host.Result r = new Host.Result(p.waitFor(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A Java main of the test classpath as a small dedicated JVM on {@code host}. */
    public Host.Result java(String host, int seconds, String mainClass, String... args) {
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-cp", testClassPath(), mainClass));
        argv.addAll(List.of(args));
        return run(host, seconds, argv.toArray(String[]::new));
    }

    /** The real classpath of the running tests (surefire's own, not its manifest-only booter jar). */
    public static String testClassPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /** saquery -p ARGS as {@code host}: the "key....value" lines of every PathRecord it printed, in order. */
    public List<Map<String, String>> saqueryPaths(String host, String... args) {
        List<String> argv = new ArrayList<>(List.of("saquery", "-p"));
        argv.addAll(List.of(args));
        Host.Result r = run(host, 15, argv.toArray(String[]::new));
        if (r.exit() != 0) {
            throw new AssertionError("saquery " + String.join(" ", argv) + " on " + host + " exited " + r.exit() + ": "
                    + r.stderr() + r.stdout());
        }
        List<Map<String, String>> out = new ArrayList<>();
        Map<String, String> cur = null;
        for (String line : r.stdout().split("\n")) {
            if (line.startsWith("PathRecord dump")) {
                cur = new LinkedHashMap<>();
                out.add(cur);
                continue;
            }
            Matcher m = FIELD.matcher(line);
            if (cur != null && m.matches()) {
                cur.put(m.group(1), m.group(2));
            }
        }
        return out;
    }

    static Map<String, String> fields(String saqueryOut) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String line : saqueryOut.split("\n")) {
            Matcher m = FIELD.matcher(line);
            if (m.matches()) {
                f.putIfAbsent(m.group(1), m.group(2));
            }
        }
        return f;
    }

    public String log() {
        try {
            Path l = dir.resolve("osm.log");
            String osm = Files.exists(l) ? Files.readString(l) : "";
            return "--- opensm.out\n" + read(dir.resolve("opensm.out")) + "--- osm.log (tail)\n"
                    + osm.substring(Math.max(0, osm.length() - 3000)) + "--- ibsim.out\n"
                    + read(dir.resolve("ibsim.out"));
        } catch (IOException e) {
            return "(logs unreadable: " + e.getMessage() + ")";
        }
    }

    private static String read(Path p) throws IOException {
        return Files.exists(p) ? Files.readString(p) : "";
    }

    /** Stops OpenSM: the SA goes silent, the ports keep their SM LID. */
    public void stopOpenSm() {
        stop(opensm);
    }

    @Override
    public void close() {
        stop(opensm);
        stop(ibsim);
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temp directory is harmless
        }
    }

    private static void stop(Process p) {
        if (!p.isAlive()) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(3, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(3, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
