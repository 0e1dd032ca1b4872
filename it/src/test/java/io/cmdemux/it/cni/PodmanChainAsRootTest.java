package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.namespaces.testkit.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A real container runtime runs the chain: podman 4.3 with its CNI backend and runc starts containers
 * whose root file system is Debian's busybox-static (no image registry), on a network whose conflist is
 * macvlan on the soft port's netdev, then host-local, then cmdemux-cni (installed by scripts/install-cni).
 * podman gets a private containers.conf and storage in a temporary directory (CONTAINERS_CONF,
 * CONTAINERS_STORAGE_CONF, --root, --runroot), so the host's podman setup is not touched; only libcni's
 * result cache goes to /var/lib/cni/results, as for every podman network, and DEL removes it.
 *
 * <p>Oracles: the pod's namespace is podman's own SandboxKey, its IP is what iproute2 shows inside it, its
 * GID index is what `cmdemux gid-index` and the daemon's table say; that the registration comes and goes is
 * the daemon's QUERY pods.
 */
class PodmanChainAsRootTest {
    private static final String RDMA_NET = "rdma-pm";
    private static final String VETH_NET = "veth-pm";

    /** Root, podman, runc and busybox-static, each failing the test with the package to install. */
    private static void requirements() {
        Host.requireRoot();
        Host.requireCommand("podman", "podman");
        Host.requireCommand("runc", "runc");
        Host.Result bb = Host.run("dpkg-query", "-W", "-f", "${Status}", "busybox-static");
        if (bb.exit() != 0 || !bb.stdout().contains("installed") || !Files.isExecutable(Path.of("/bin/busybox"))) {
            throw new AssertionError("this test needs the Debian package busybox-static (a static /bin/busybox for"
                    + " the containers' root"
                    + " file system): apt-get install -y busybox-static; .ci/run does this");
        }
    }

    /** podman with this test's own configuration and storage. */
    private record Podman(Path dir) {
        Host.Result run(String... args) {
            List<String> argv = new ArrayList<>(List.of("env", "CONTAINERS_CONF=" + dir.resolve("containers.conf"),
                    "CONTAINERS_STORAGE_CONF=" + dir.resolve("storage.conf"), "podman", "--root", dir.resolve("root")
                            .toString(),
                    "--runroot", dir.resolve("runroot").toString()));
            argv.addAll(List.of(args));
            return Host.run(argv.toArray(String[]::new));
        }

        String ok(String... args) {
            Host.Result r = run(args);
            assertThat(r.exit()).as("podman %s: %s", String.join(" ", args), r.stderr()).isZero();
            return r.stdout().strip();
        }

        /** A container that sleeps on {@code network}, with cmdemux-env mounted from the build. */
        Host.Result start(String name, String network, Path env, String... extra) {
            String[] hard = Host.sh("bash", "-c", "ulimit -Hn; ulimit -Hu").strip().split("\\s+");
            String nofile = Long.toString(Math.min(limit(hard[0]), 1024));
            String nproc = Long.toString(Math.min(limit(hard[1]), 4096));
            List<String> argv = new ArrayList<>(List.of("run", "-d", "--name", name, "--network", network, "--runtime",
                    "runc",
                    "--ulimit", "nofile=" + nofile + ":" + nofile, "--ulimit", "nproc=" + nproc + ":" + nproc,
                    "-v", env + ":/cmdemux-env:ro"));
            argv.addAll(List.of(extra));
            argv.addAll(List.of("--rootfs", dir.resolve("rootfs").toString(), "/bin/sleep", "600"));
            return run(argv.toArray(String[]::new));
        }

        private static long limit(String s) {
            return s.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(s);
        }

        /** The container's network namespace file, as podman reports it. */
        String netns(String name) {
            return ok("inspect", "--format", "{{.NetworkSettings.SandboxKey}}", name);
        }
    }

    private static Path setUp(CniNode node, String vethUplink) throws IOException {
        // Short: podman refuses a runroot longer than 50 characters (conmon's socket paths live under it).
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "pm");
        for (String d : List.of("root", "runroot", "tmp", "net.d", "rootfs/bin")) {
            Files.createDirectories(dir.resolve(d));
        }
        Files.copy(Path.of("/bin/busybox"), dir.resolve("rootfs/bin/busybox"));
        Files.createSymbolicLink(dir.resolve("rootfs/bin/sh"), Path.of("busybox"));
        Files.createSymbolicLink(dir.resolve("rootfs/bin/sleep"), Path.of("busybox"));
        Files.writeString(dir.resolve("containers.conf"), "[network]\nnetwork_backend = \"cni\"\n"
                + "cni_plugin_dirs = [\"" + CniNode.pluginDir() + "\", \"" + CniNode.REFERENCE_PLUGINS + "\"]\n"
                + "network_config_dir = \"" + dir.resolve("net.d") + "\"\n"
                + "[engine]\nruntime = \"runc\"\ncgroup_manager = \"cgroupfs\"\nevents_logger = \"none\"\n"
                + "tmp_dir = \"" + dir.resolve("tmp") + "\"\n");
        Files.writeString(dir.resolve("storage.conf"), "[storage]\ndriver = \"vfs\"\nrunroot = \""
                + dir.resolve("runroot")
                + "\"\ngraphroot = \"" + dir.resolve("root") + "\"\n");
        Files.writeString(dir.resolve("net.d/" + RDMA_NET + ".conflist"), conflist(node, RDMA_NET, node.uplink,
                "10.79.0.0/24"));
        Files.writeString(dir.resolve("net.d/" + VETH_NET + ".conflist"), conflist(node, VETH_NET, vethUplink,
                "10.80.0.0/24"));
        return dir;
    }

    /**
     * macvlan + host-local + cmdemux-cni; cmdemux-cni asks for every capability podman has, so that podman
     * passes runtimeConfig (aliases, port mappings) as it does for plugins that want them, and names the soft
     * port for its JVM fallback, which answers while the daemon is down.
     */
    private static String conflist(CniNode node, String name, String master, String subnet) throws IOException {
        ObjectNode list = CniRuntime.JSON.createObjectNode();
        list.put("cniVersion", "1.0.0");
        list.put("name", name);
        ArrayNode plugins = list.putArray("plugins");
        plugins.add(node.macvlan(master, subnet));
        ObjectNode ours = node.cmdemux();
        ObjectNode caps = ours.putObject("capabilities");
        for (String c : List.of("aliases", "portMappings", "ips", "mac")) {
            caps.put(c, true);
        }
        ours.putObject("rdma").putArray("softPorts").add("soft0=" + node.uplink + ":v1,v2");
        plugins.add(ours);
        return CniRuntime.JSON.writeValueAsString(list);
    }

    private static List<String> podNames(CniNode node) throws IOException {
        List<String> out = new ArrayList<>();
        for (JsonNode r : node.pods()) {
            out.add(r.at("/pod/name").asText());
        }
        return out;
    }

    /** The container's IPv4 address on eth0, as iproute2 shows it inside podman's namespace. */
    private static String ip(String netns) throws IOException {
        String name = Path.of(netns).getFileName().toString();
        String cidr = CniNode.ipv4(name, "eth0").get(0);
        return cidr.substring(0, cidr.indexOf('/'));
    }

    private static int daemonGidIndex(CniNode node, String netns, String ip) throws IOException {
        long inode = CniNode.inode(netns);
        for (JsonNode e : node.query(QueryKind.GIDS)) {
            if (e.get("gid").asText().equals("::ffff:" + ip) && e.get("type").asText().equals("RoCE v2")
                    && e.path("ndev").path("inode").asLong() == inode) {
                return e.get("index").asInt();
            }
        }
        return -1;
    }

    private static int cliGidIndex(CniNode node, String netns, String ip) {
        Host.Result r = null;
        for (int attempt = 0; attempt < 5 && (r == null || r.exit() == 3 && r.stderr()
                .contains("dump interrupted")); attempt++) {
            r = CniNode.cli("gid-index", "--netns", netns, "--ip", ip, "--rdma-port", "soft0=" + node.uplink
                    + ":v1,v2");
        }
        assertThat(r.exit()).as(r.stderr()).isZero();
        return Integer.parseInt(r.stdout().strip());
    }

    /** NCCL_IB_GID_INDEX as cmdemux-env prints it inside the container. */
    private static int envIndex(Podman podman, CniNode node, String container) {
        String out = podman.ok("exec", container, "/cmdemux-env", "--abstract-name", node.abstractName, "--wait", "30");
        for (String line : out.split("\n")) {
            if (line.startsWith("NCCL_IB_GID_INDEX=")) {
                return Integer.parseInt(line.substring(line.indexOf('=') + 1).replace("'", ""));
            }
        }
        throw new AssertionError("no NCCL_IB_GID_INDEX in " + out);
    }

    @Test
    void podmanRegistersAtStartCmdemuxEnvKnowsTheIndexRmUnregistersAVethFailsWith100AndARestartIsSurvived()
            throws Exception {
        requirements();
        long t0 = System.nanoTime();
        try (CniNode node = new CniNode("pmn")) {
            String veth = node.veth("ve");
            Path dir = setUp(node, veth);
            Podman podman = new Podman(dir);
            Path env = CniNode.pluginDir().resolve("cmdemux-env");
            node.startDaemon("soft0=" + node.uplink + ":v1,v2");
            try {
                // at start: registered, under podman's name for it
                Host.Result c1 = podman.start("c1", RDMA_NET, env);
                assertThat(c1.exit()).as(c1.stderr()).isZero();
                assertThat(podNames(node)).containsExactly("c1");
                String ns1 = podman.netns("c1");
                assertThat(node.pods().get(0).at("/netns/inode").asLong()).isEqualTo(CniNode.inode(ns1));
                String ip1 = ip(ns1);
                assertThat(node.pods().get(0).at("/attachments/0/gids/0/ip").asText()).isEqualTo(ip1);

                // inside: cmdemux-env's index is the one gid-index and the daemon's table give
                int index1 = envIndex(podman, node, "c1");
                assertThat(index1).isEqualTo(cliGidIndex(node, ns1, ip1)).isEqualTo(daemonGidIndex(node, ns1, ip1));

                // a network over a veth: the container does not start, and podman shows code 100 and the fix
                Host.Result bad = podman.start("bad", VETH_NET, env);
                assertThat(bad.exit()).isNotZero();
                assertThat(bad.stderr()).contains("plugin type=\"cmdemux-cni\" failed (add)")
                        .contains("not an upper of any RDMA port")
                        .contains("cmdemux-cni error 100").contains("fix: attach the pod with macvlan or ipvlan on "
                                + node.uplink)
                        .contains("\"master\": \"" + node.uplink + "\"");
                assertThat(bad.stderr().split("not an upper of any RDMA port", -1))
                        .as("the message once, not repeated in details").hasSize(2);
                assertThat(podNames(node)).containsExactly("c1");
                podman.ok("rm", "-f", "-t", "0", "bad");

                // a daemon restart in the middle: c2 starts while it is down (the JVM fallback registers it in the
                // daemon's pods directory), and the restarted daemon knows both
                node.stopDaemon();
                Host.Result c2 = podman.start("c2", RDMA_NET, env);
                assertThat(c2.exit()).as(c2.stderr()).isZero();
                node.startDaemon("soft0=" + node.uplink + ":v1,v2");
                assertThat(podNames(node)).containsExactlyInAnyOrder("c1", "c2");
                String ns2 = podman.netns("c2");
                String ip2 = ip(ns2);
                int index2 = envIndex(podman, node, "c2");
                assertThat(index2).isEqualTo(cliGidIndex(node, ns2, ip2)).isEqualTo(daemonGidIndex(node, ns2, ip2));
                assertThat(index2).isNotEqualTo(envIndex(podman, node, "c1"));
                // --mac-address puts MAC=... into CNI_ARGS (tolerated: podman sets IgnoreUnknown=1), -p passes
                // runtimeConfig.portMappings to a plugin that asks for the capability
                Host.Result c3 = podman.start("c3", RDMA_NET, env, "--mac-address", "02:79:00:00:00:33", "-p",
                        "18080:80");
                assertThat(c3.exit()).as("the next container after the restart: %s", c3.stderr()).isZero();
                assertThat(podNames(node)).containsExactlyInAnyOrder("c1", "c2", "c3");
                String ns3 = podman.netns("c3");
                assertThat(Host.sh("ip", "-n", Path.of(ns3).getFileName().toString(), "-j", "link", "show", "eth0"))
                        .contains("02:79:00:00:00:33");

                // podman rm: DEL removes each registration, and libcni's cached result
                podman.ok("rm", "-f", "-t", "0", "c1");
                assertThat(podNames(node)).containsExactlyInAnyOrder("c2", "c3");
                podman.ok("rm", "-f", "-t", "0", "c2", "c3");
                assertThat(node.pods()).isEmpty();
                Path results = Path.of("/var/lib/cni/results");
                assertThat(results).as("libcni caches each attachment's result here").isDirectory();
                try (var cached = Files.list(results)) {
                    assertThat(cached.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(RDMA_NET + "-")))
                            .isEmpty();
                }
            } finally {
                podman.run("rm", "-af", "-t", "0");
                Host.run("rm", "-rf", dir.toString());
            }
        }
        System.out.printf("PodmanChainAsRootTest: %.1f s%n", (System.nanoTime() - t0) / 1e9);
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).as("CI time").isLessThan(120);
    }
}
