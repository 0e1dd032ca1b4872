package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.testkit.Host;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * cmdemux-env against a daemon that lies: a socket served by this test (cmdemux-env's --socket) answers
 * QUERY self with truncated frames, wrong lengths, broken records and hostile JSON. Each gets exit 5
 * and a message, within the time limit, never a crash (a signal would show as an exit status above 128)
 * or a hang; names that would break out of sh's quotes are refused. The frames are written here by hand
 * after docs/PROTOCOL.md §2-3, not by the project's encoder.
 */
class CmdemuxEnvHostileAnswersTest {
    private static final String GOOD = "{\"netns\":{\"inode\":1,\"names\":[]},\"pods\":[],"
            + "\"interfaces\":[{\"ifname\":\"net1\",\"ifindex\":2,"
            + "\"kind\":\"macvlan\",\"device\":\"soft0\",\"port\":1,\"linkLayer\":\"ethernet\","
            + "\"gidIndex\":{\"roce-v2\":3},\"gids\":[],"
            + "\"warnings\":[]}]}";
    private static Path dir;
    private static Path env;

    @BeforeAll
    static void build() throws IOException {
        Host.requireCommand("gcc", "gcc");
        dir = Files.createTempDirectory("cmdemux-env-hostile");
        env = dir.resolve("cmdemux-env");
        Host.Result cc = Host.run("gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-std=gnu11", "-o",
                env.toString(),
                CniNode.REPO.resolve("cni/src/main/c/cmdemux-env.c").toString());
        assertThat(cc.exit()).as("gcc -static needs libc6-dev: %s", cc.stderr()).isZero();
    }

    @AfterAll
    static void cleanUp() {
        Host.run("rm", "-rf", dir.toString());
    }

    private static byte[] header(int version, int type, int status, int flags, long length, int seq) {
        return ByteBuffer.allocate(16).put((byte) version).put((byte) type).putShort((short) status).putShort((short) 1)
                .putShort((short) flags).putInt((int) length).putInt(seq).array();
    }

    private static byte[] record(int type, int length, byte[] value) {
        return ByteBuffer.allocate(8 + value.length).putShort((short) type).putShort((short) 0x8000).putInt(length)
                .put(value).array();
    }

    private static byte[] reply(int type, int status, int seq, byte[]... records) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] r : records) {
            body.writeBytes(r);
        }
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.writeBytes(header(1, type, status, 1, 16 + body.size(), seq));
        f.writeBytes(body.toByteArray());
        return f.toByteArray();
    }

    private static byte[] json(String text) {
        byte[] v = text.getBytes(StandardCharsets.UTF_8);
        return reply(4, 0, 1, record(6, 8 + v.length, v));
    }

    record Run(int exit, String stdout, String stderr, double seconds) {}

    /** One connection: reads the query, sends {@code answer}, then closes (or holds it open when {@code hold}). */
    private static Run against(byte[] answer, boolean hold, String... args) throws Exception {
        Path sock = Files.createTempFile(dir, "s", ".sock");
        Files.delete(sock);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(sock));
            Thread t = new Thread(() -> {
                try (SocketChannel c = server.accept()) {
                    ByteBuffer q = ByteBuffer.allocate(26);
                    while (q.hasRemaining() && c.read(q) >= 0) {
                        // the query is 26 bytes: a header and one QUERY record
                    }
                    c.write(ByteBuffer.wrap(answer));
                    if (hold) {
                        Thread.sleep(3000);
                    }
                } catch (IOException | InterruptedException e) {
                    // cmdemux-env went away first: that is its right
                }
            });
            t.setDaemon(true);
            t.start();
            List<String> argv = new ArrayList<>(List.of(env.toString(), "--socket", sock.toString()));
            argv.addAll(List.of(args));
            Path out = dir.resolve("out");
            Path err = dir.resolve("err");
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("cmdemux-env hung on " + Arrays.toString(Arrays.copyOf(answer,
                        Math.min(answer.length, 64))));
            }
            double s = (System.nanoTime() - t0) / 1e9;
            t.join(5000);
            return new Run(p.exitValue(), Files.readString(out), Files.readString(err), s);
        }
    }

    private static void refused(byte[] answer, String message) throws Exception {
        Run r = against(answer, false);
        assertThat(r.exit()).as("%s", r).isEqualTo(5);
        assertThat(r.stdout()).isEmpty();
        assertThat(r.stderr()).startsWith("cmdemux-env: ").contains(message);
    }

    @Test
    void aWellFormedAnswerIsPrintedSoTheHarnessCanTellGoodFromBad() throws Exception {
        Run r = against(json(GOOD), false);

        assertThat(r.exit()).as("%s", r).isZero();
        assertThat(r.stdout()).contains("NCCL_IB_GID_INDEX='3'\n").contains("NCCL_IB_HCA='=soft0:1'\n")
                .contains("UCX_NET_DEVICES='soft0:1'\n");
    }

    @Test
    void truncatedFramesAndLyingLengthsAreRefused() throws Exception {
        refused(new byte[0], "no whole answer");
        refused(Arrays.copyOf(json(GOOD), 10), "no whole answer");
        refused(header(2, 4, 0, 1, 16, 1), "version 2");
        refused(header(1, 4, 0, 1, 8, 1), "length 8");
        refused(header(1, 4, 0, 1, 0xffffffffL, 1), "length 4294967295");
        refused(Arrays.copyOf(json(GOOD), 100), "closed before its end");
        refused(reply(4, 0, 1, record(6, 4, new byte[0])), "do not add up");
        refused(reply(4, 0, 1, record(6, 5000, "{}".getBytes(StandardCharsets.UTF_8))), "do not add up");
        refused(reply(4, 0, 1, new byte[] {0, 6, 0}), "do not add up");
        refused(reply(4, 0, 2, record(6, 10, "{}".getBytes(StandardCharsets.UTF_8))), "no whole answer");
        refused(reply(4, 0, 1), "without a JSON record");
        refused(reply(0x7f, 90, 0, record(1, 8 + 4, "nope".getBytes(StandardCharsets.UTF_8))),
                "refused the query (errno 90): nope");
        refused(reply(4, 1, 1, record(1, 8 + 6, "denied".getBytes(StandardCharsets.UTF_8))), "errno 1): denied");
    }

    @Test
    void hostileJsonIsRefused() throws Exception {
        refused(json("not json"), "not the JSON object");
        refused(json("[" + "[".repeat(100_000) + "]".repeat(100_000) + "]"), "not the JSON object");
        refused(json("{\"interfaces\":[" + "{},".repeat(70_000) + "{}]}"), "not the JSON object");
        refused(json(GOOD + "x"), "not the JSON object");
        refused(json("{\"interfaces\":\"net1\"}"), "no \"interfaces\" list");
        refused(json(GOOD.replace("\"ifname\":\"net1\"", "\"ifname\":1")), "lacks its ifname");
        refused(json(GOOD.replace("\"roce-v2\":3", "\"roce-v2\":1e30")), "not a number in range");
        refused(json(GOOD.replace("\"roce-v2\":3", "\"roce-v2\":99999999999999999999999")), "not a number in range");
        refused(json(GOOD.replace("\"roce-v2\":3", "\"roce-v2\":-1")), "not a number in range");
        refused(json(GOOD.replace("\"port\":1", "\"port\":256")), "not a number in range");
        refused(json(GOOD.replace("net1", "net1\\u0000")), "not the JSON object");
        refused(json(GOOD.replace("net1", "\\ud800")), "not the JSON object");
        refused(json(GOOD.replace("\"net1\"", "\"net1")), "not the JSON object");
    }

    @Test
    void namesThatWouldLeaveShellQuotesAreRefused() throws Exception {
        for (String name : List.of("x'; touch /tmp/owned; '", "a b", "net1,eth0", "mlx5_0:1", "tab\\there", "\\u00e9t",
                "")) {
            refused(json(GOOD.replace("\"net1\"", "\"" + name + "\"")), "characters no kernel name has");
            refused(json(GOOD.replace("\"soft0\"", "\"" + name + "\"")), "characters no kernel name has");
        }
    }

    @Test
    void aQuoteInANameStaysInsideItsShellWord() throws Exception {
        Run r = against(json(GOOD.replace("\"soft0\"", "\"x'y\"")), false);
        assertThat(r.exit()).as("%s", r).isZero();
        Path script = dir.resolve("vars.sh");
        Files.writeString(script, r.stdout());

        Host.Result sh = Host.run("sh", "-c", ". " + script
                + " && printf '%s|%s' \"$NCCL_IB_HCA\" \"$UCX_NET_DEVICES\"");

        assertThat(sh.stdout()).isEqualTo("=x'y:1|x'y:1");
    }

    @Test
    void aDaemonThatSaysNothingTimesOut() throws Exception {
        Run r = against(new byte[0], true, "--timeout", "1");

        assertThat(r.exit()).as("%s", r).isEqualTo(5);
        assertThat(r.stderr()).contains("did not answer within 1 s");
        assertThat(r.seconds()).isLessThan(3);
    }

    @Test
    void randomlyDamagedAnswersNeverCrashOrHang() throws Exception {
        byte[] good = json(GOOD);
        Random rnd = new Random(21);
        int crashes = 0;
        List<Integer> exits = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            byte[] bad = rnd.nextInt(4) == 0 ? Arrays.copyOf(good, rnd.nextInt(good.length)) : good.clone();
            for (int k = 1 + rnd.nextInt(4); k > 0 && bad.length > 0; k--) {
                bad[rnd.nextInt(bad.length)] = (byte) rnd.nextInt(256);
            }
            Run r = against(bad, false, "--timeout", "2");
            exits.add(r.exit());
            if (r.exit() >= 128 || !List.of(0, 1, 3, 4, 5).contains(r.exit())) {
                crashes++;
            }
            if (r.exit() == 0) {
                for (String line : r.stdout().split("\n")) {
                    assertThat(line).matches("[A-Z_]+='[^']*'|export( [A-Z_]+)+");
                }
            }
        }
        assertThat(crashes).as("exits %s", exits).isZero();
        assertThat(exits).as("some damage is harmless, most is refused").contains(0, 5);
    }
}
