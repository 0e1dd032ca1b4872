package io.cmdemux.it;

import static io.cmdemux.namespaces.testkit.Host.bash;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 22: a read verb answered by the running daemon (the CLI message) prints what the one-shot run prints,
 * byte for byte, on stdout and stderr, and exits the same. Both are the real jar as a process: once with
 * CMDEMUX_VIA_DAEMON=always (which fails unless the daemon answered) and once with never. The namespaces include
 * one made after the daemon started, with addresses added one by one, so that the daemon's view is one it kept up
 * to date, not one it dumped. Needs root.
 */
class ViaDaemonAsRootTest {
    private static ServeFixture f;
    private static String late;

    @BeforeAll
    static void serve() throws Exception {
        f = new ServeFixture("vd");
        f.startServe();
        // Named to sort before the fixture's pods: the daemon lists it last, a scan does not.
        late = f.ns.add("a0");
        String p = f.ns.prefix();
        bash("set -e\n"
                + "ip link add " + p + "m9 link " + f.up + " type macvlan mode bridge\n"
                + "ip link set " + p + "m9 netns " + late + "\n"
                + "ip -n " + late + " link set " + p + "m9 up\n"
                + "ip -n " + late + " addr add 10.88.0.21/24 dev " + p + "m9\n"
                + "ip -n " + late + " addr add fd88::21/64 dev " + p + "m9 nodad\n"
                + "ip -n " + late + " addr add 10.88.0.22/24 dev " + p + "m9\n"
                + "ip -n " + late + " addr add 10.89.0.21/24 dev " + p + "m9\n");
        long deadline = System.currentTimeMillis() + 30_000;
        while (run("always", Path.of("/"), "topology", "--json").exit() != 0) { // the daemon warms its verbs first
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("the daemon answered no CLI verb within 30 s: "
                        + run("always", Path.of("/"), "topology", "--json").err());
            }
            Thread.sleep(200);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (f != null) {
            f.close();
        }
    }

    record Run(int exit, byte[] out, String err) {
        String text() {
            return new String(out, StandardCharsets.UTF_8);
        }
    }

    static Run run(String via, Path cwd, String... args) throws Exception {
        List<String> argv = new ArrayList<>(Binaries.cmdemux(null, args));
        Path out = Files.createTempFile(f.dir, "out", "");
        Path err = Files.createTempFile(f.dir, "err", "");
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile());
        pb.environment().put("CMDEMUX_VIA_DAEMON", via);
        pb.environment().put("CMDEMUX_SOCKET", f.socket.toString());
        Process proc = pb.start();
        if (!proc.waitFor(60, TimeUnit.SECONDS)) {
            proc.destroyForcibly();
            throw new AssertionError("cmdemux " + String.join(" ", args) + " did not end within 60 s");
        }
        return new Run(proc.exitValue(), Files.readAllBytes(out), Files.readString(err));
    }

    private static void sameBothWays(Path cwd, String... args) throws Exception {
        Run daemon = run("always", cwd, args);
        Run oneShot = run("never", cwd, args);
        String what = String.join(" ", args);
        assertThat(daemon.err()).as("stderr of %s", what).isEqualTo(oneShot.err());
        assertThat(daemon.text()).as("stdout of %s", what).isEqualTo(oneShot.text());
        assertThat(daemon.out()).as("stdout bytes of %s", what).isEqualTo(oneShot.out());
        assertThat(daemon.exit()).as("exit status of %s", what).isEqualTo(oneShot.exit());
    }

    @Test
    void theReadVerbsPrintTheSameThroughTheDaemonAsOneShot() throws Exception {
        String port = "rxe0=" + f.up;
        Path root = Path.of("/");
        Run text = run("never", root, "topology");
        assertThat(text.exit()).isZero();
        assertThat(text.text()).as("the one-shot table names every pod").contains(f.pods[1], f.pods[4], late)
                .contains("10.88.0.22/24");
        sameBothWays(root, "topology");
        sameBothWays(root, "topology", "--json");
        sameBothWays(root, "topology", "--format", "dot");
        sameBothWays(root, "gids", "--rdma-port", port);
        sameBothWays(root, "gids", "--rdma-port", port, "--json");
        sameBothWays(root, "gid-index", "--rdma-port", port, "--netns", "/run/netns/" + f.pods[1], "--ip",
                "10.88.0.11");
        sameBothWays(root, "gid-index", "--rdma-port", port, "--netns", late, "--ip", "10.88.0.22", "--json");
        sameBothWays(root, "explain", "--rdma-port", port, "--dst", "10.88.0.12:7471", "--src", "10.88.0.99:40000");
        sameBothWays(root, "explain", "--rdma-port", port, "--dst", "10.88.0.21:7471", "--src", "10.88.0.99:40000",
                "--json");
    }

    @Test
    void relativePathsAreTheCallersAndErrorsAreTheSame() throws Exception {
        String port = "rxe0=" + f.up;
        // ./POD from /run/netns: the daemon's own directory is /, where it names nothing.
        Run r = run("never", Path.of("/run/netns"), "gid-index", "--rdma-port", port, "--netns", "./" + f.pods[2],
                "--ip", "10.88.0.12");
        assertThat(r.exit()).as(r.err()).isZero();
        sameBothWays(Path.of("/run/netns"), "gid-index", "--rdma-port", port, "--netns", "./" + f.pods[2], "--ip",
                "10.88.0.12");
        sameBothWays(Path.of("/"), "gid-index", "--netns", "no-such-namespace", "--ip", "10.88.0.12");
        sameBothWays(Path.of("/"), "explain", "--dst", "10.88.0.12:7471"); // a usage error: exit 2, usage on stderr
        sameBothWays(Path.of("/"), "gids", "--help");
    }

    @Test
    void aFileOnTheCommandLineIsLeftToTheOneShotRun() throws Exception {
        Path snapshot = f.dir.resolve("snap.zip");
        assertThat(run("never", Path.of("/"), "snapshot", "save", snapshot.toString()).exit()).isZero();

        Run always = run("always", Path.of("/"), "topology", "--snapshot", snapshot.toString());
        Run auto = run("auto", Path.of("/"), "topology", "--snapshot", snapshot.toString());
        Run never = run("never", Path.of("/"), "topology", "--snapshot", snapshot.toString());

        assertThat(always.exit()).isEqualTo(3);
        assertThat(always.err()).contains("EOPNOTSUPP").contains("--snapshot names a file");
        assertThat(never.exit()).isZero();
        assertThat(auto.out()).isEqualTo(never.out());
        assertThat(auto.exit()).isEqualTo(never.exit());
    }

    @Test
    void withNoDaemonAutoRunsTheVerbItself() throws Exception {
        Path none = f.dir.resolve("no-daemon.sock");
        List<String> argv = new ArrayList<>(Binaries.cmdemux(null, "topology", "--json"));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        pb.environment().put("CMDEMUX_SOCKET", none.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).startsWith("{\"generation\":1,");
    }
}
