package io.cmdemux.it.cni;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.namespaces.testkit.Netns;
import io.cmdemux.control.client.BlockingControlClient;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.Messages;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.Wire;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One test's node: an uplink (a veth, the soft port's netdev) with IPv6 off so that it has no
 * addresses and hence no GIDs beyond the default ones, pod namespaces with IPv6 off likewise,
 * cmdemux-cni installed by scripts/install-cni, and the daemon as a real `cmdemux serve` process.
 * Everything goes away in {@link #close()}.
 */
final class CniNode implements AutoCloseable {
    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    static final Path JAR = REPO.resolve("cli/target/cmdemux.jar");
    static final Path REFERENCE_PLUGINS = Path.of("/usr/lib/cni");
    private static Path installed;

    final Netns ns;
    final Path dir;
    final Path socket;
    final String uplink;
    private Process daemon;

    CniNode(String tag) throws IOException {
        requirements();
        this.ns = new Netns(tag);
        this.dir = Files.createTempDirectory("cmdemux-cni-" + ns.prefix());
        this.socket = dir.resolve("run/cmdemux.sock");
        this.uplink = veth("up");
    }

    /** Root, the reference plugins, gcc and the built jar; a missing one fails the test, naming what to install. */
    static void requirements() {
        Host.requireRoot();
        Host.requireCommand("ip", "iproute2");
        Host.requireCommand("gcc", "gcc");
        Host.requireCommand("java", "openjdk-17-jre-headless");
        for (String p : List.of("macvlan", "host-local", "tuning")) {
            if (!Files.isExecutable(REFERENCE_PLUGINS.resolve(p))) {
                throw new AssertionError("this test needs the CNI reference plugin " + REFERENCE_PLUGINS.resolve(p)
                        + ": install the Debian package containernetworking-plugins"
                                + " (apt-get install -y containernetworking-plugins; .ci/run does this)");
            }
        }
        if (!Files.isRegularFile(JAR)) {
            throw new AssertionError(JAR + " is missing: build it first"
                    + " (mvn -B -pl cli,it -am verify builds it before these tests)");
        }
    }

    /** scripts/install-cni into a temporary CNI bin directory, once per test JVM. */
    static synchronized Path pluginDir() {
        if (installed == null) {
            try {
                Path root = Files.createTempDirectory("cmdemux-cni-install");
                Host.Result r = Host.run("env", "CMDEMUX_HOME=" + root.resolve("home"), "CMDEMUX_JAR=" + JAR, "bash",
                        REPO.resolve("scripts/install-cni").toString(), root.resolve("bin").toString());
                if (r.exit() != 0) {
                    throw new AssertionError("scripts/install-cni failed: " + r.stderr());
                }
                installed = root.resolve("bin");
                // A jar and a class archive, 36 MB: gone with the test JVM.
                Runtime.getRuntime().addShutdownHook(new Thread(() -> Host.run("rm", "-rf", root.toString())));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
        return installed;
    }

    CniRuntime runtime() {
        return new CniRuntime(List.of(REFERENCE_PLUGINS, pluginDir()));
    }

    /** A host veth (and its peer), up, with IPv6 off: a netdev with no address at all. */
    String veth(String suffix) {
        String a = ns.hostLink(suffix);
        String b = ns.name(suffix + "p");
        Host.sh("ip", "link", "add", a, "type", "veth", "peer", "name", b);
        Host.sh("sysctl", "-qw", "net.ipv6.conf." + a + ".disable_ipv6=1");
        Host.sh("ip", "link", "set", a, "up");
        Host.sh("ip", "link", "set", b, "up");
        return a;
    }

    /** A pod namespace whose interfaces get no IPv6 addresses; returns its path. */
    String pod(String suffix) {
        String name = ns.add(suffix);
        Host.sh("ip", "netns", "exec", name, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1");
        Host.sh("ip", "netns", "exec", name, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1");
        return "/run/netns/" + name;
    }

    /** Deletes a pod namespace made with {@link #pod}. */
    void removePod(String path) {
        String name = path.substring("/run/netns/".length());
        Host.run("ip", "netns", "del", name);
        ns.forget(name);
    }

    /** The macvlan plugin's configuration on {@code master}, with host-local IPAM in a fresh dataDir. */
    ObjectNode macvlan(String master) throws IOException {
        return macvlan(master, "10.77.0.0/24");
    }

    ObjectNode macvlan(String master, String subnet) throws IOException {
        ObjectNode m = CniRuntime.JSON.createObjectNode();
        m.put("type", "macvlan");
        m.put("master", master);
        m.put("mode", "bridge");
        ObjectNode ipam = m.putObject("ipam");
        ipam.put("type", "host-local");
        ipam.put("subnet", subnet);
        ipam.put("dataDir", Files.createTempDirectory(dir, "ipam").toString());
        return m;
    }

    /** cmdemux-cni's configuration, speaking to this node's daemon. */
    ObjectNode cmdemux() {
        ObjectNode c = CniRuntime.JSON.createObjectNode();
        c.put("type", "cmdemux-cni");
        c.put("controlSocket", socket.toString());
        return c;
    }

    // ---- the daemon ----

    /** Starts `cmdemux serve` with one soft port and waits until its control socket answers queries. */
    void startDaemon(String rdmaPort) throws IOException, InterruptedException {
        Files.createDirectories(socket.getParent());
        Path log = dir.resolve("serve.log");
        // The CNI log at info: each CNI request's own time, for the latency bench.
        String cniLog = "-Dorg.slf4j.simpleLogger.log.io.cmdemux.cni=" + System.getProperty("cni.daemonLog", "info");
        daemon = new ProcessBuilder("java", cniLog, "-jar", JAR.toString(), "serve", "--rdma-port", rdmaPort,
                "--control-socket", socket.toString(),
                "--metrics", "127.0.0.1:0", "--no-nft")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (!daemon.isAlive()) {
                throw new AssertionError("cmdemux serve exited with " + daemon.exitValue() + ": "
                        + Files.readString(log));
            }
            try (BlockingControlClient c = BlockingControlClient.connect(socket, Duration.ofSeconds(2))) {
                if (c.call(Wire.QUERY, List.of(Messages.query(QueryKind.TOPOLOGY))).status() == Wire.OK) {
                    return;
                }
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("cmdemux serve did not answer on " + socket + " within 90 s: "
                + Files.readString(log));
    }

    /** What the daemon wrote so far (for failure messages). */
    String daemonLog() {
        try {
            return Files.readString(dir.resolve("serve.log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** SIGTERM to the daemon this node started, and waits for its cleanup. */
    void stopDaemon() throws InterruptedException {
        if (daemon != null) {
            daemon.destroy();
            if (!daemon.waitFor(30, TimeUnit.SECONDS)) {
                daemon.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            daemon = null;
        }
    }

    /** The daemon's QUERY pods answer. */
    JsonNode pods() throws IOException {
        return query(QueryKind.PODS);
    }

    JsonNode query(QueryKind kind) throws IOException {
        try (BlockingControlClient c = BlockingControlClient.connect(socket, Duration.ofSeconds(10))) {
            Frame f = c.call(Wire.QUERY, List.of(Messages.query(kind)));
            if (f.status() != Wire.OK) {
                throw new AssertionError("QUERY " + kind + ": " + Wire.errnoName(f.status()) + " " + f.text());
            }
            return CniRuntime.JSON.readTree(f.first(Wire.R_JSON).orElseThrow().value());
        }
    }

    /** The nsfs inode of a namespace file, as `stat -L` reports it (the oracle for "which namespace"). */
    static long inode(String path) {
        return Long.parseLong(Host.sh("stat", "-L", "-c", "%i", path).strip());
    }

    /** The IPv4 addresses of an interface in a namespace, as iproute2 reports them. */
    static List<String> ipv4(String netnsName, String ifname) throws IOException {
        JsonNode a = CniRuntime.JSON.readTree(Host.sh("ip", "-n", netnsName, "-j", "-4", "addr", "show",
                "dev", ifname));
        List<String> out = new ArrayList<>();
        for (JsonNode l : a) {
            for (JsonNode i : l.path("addr_info")) {
                out.add(i.get("local").asText() + "/" + i.get("prefixlen").asInt());
            }
        }
        return out;
    }

    /** Runs the cmdemux CLI from the built jar. */
    static Host.Result cli(String... args) {
        List<String> argv = new ArrayList<>(List.of("java", "-jar", JAR.toString()));
        argv.addAll(List.of(args));
        return Host.run(argv.toArray(new String[0]));
    }

    @Override
    public void close() throws InterruptedException {
        stopDaemon();
        ns.close();
        Host.run("rm", "-rf", dir.toString());
    }
}
