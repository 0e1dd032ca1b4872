package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.namespaces.testkit.Host;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * cmdemux-env (installed by scripts/install-cni) run inside pod namespaces against a real `cmdemux serve`
 * whose soft port soft0 (RoCE v1 and v2) sits on a veth: pods 1 and 2 have macvlans of it, made with
 * iproute2 one after the other, so their GIDs take different slots; pod 3 has only a veth. The index
 * cmdemux-env prints is checked against two answers it does not compute: `cmdemux gid-index` (the CLI,
 * which recomputes the table from the kernel's links and addresses) and the daemon's own GID table
 * (QUERY gids on the host socket). The namespace's identity is `stat -L` of its file.
 */
class CmdemuxEnvAsRootTest {
    private static CniNode node;
    private static String env;
    private static final String[] POD = new String[4];
    private static final String[] IP = {null, "10.77.0.2", "10.77.0.3", "10.77.0.4"};

    @BeforeAll
    static void world() throws Exception {
        node = new CniNode("cen");
        env = CniNode.pluginDir().resolve("cmdemux-env").toString();
        node.startDaemon("soft0=" + node.uplink + ":v1,v2");
        for (int i = 1; i <= 3; i++) {
            POD[i] = node.pod("p" + i).substring("/run/netns/".length());
        }
        String p = node.ns.prefix();
        for (int i = 1; i <= 2; i++) {
            Host.bash("set -e\nip link add " + p + "m" + i + " link " + node.uplink + " type macvlan mode bridge\n"
                    + "ip link set " + p + "m" + i + " netns " + POD[i] + "\n"
                    + "ip -n " + POD[i] + " link set " + p + "m" + i + " name net1\n"
                    + "ip -n " + POD[i] + " addr add " + IP[i] + "/24 dev net1\n"
                    + "ip -n " + POD[i] + " link set net1 up\n");
            // one pod at a time: the daemon's table follows the order in which addresses appear
            awaitDaemonGid(IP[i]);
        }
        Host.bash("set -e\nip link add " + p + "v3 type veth peer name " + p + "v3p\n"
                + "ip link set " + p + "v3p netns " + POD[3] + "\n"
                + "ip -n " + POD[3] + " addr add " + IP[3] + "/24 dev " + p + "v3p\n"
                + "ip -n " + POD[3] + " link set " + p + "v3p up\nip link set " + p + "v3 up\n");
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    /** cmdemux-env in a pod, talking to this node's daemon. */
    private static Host.Result env(String pod, String... args) {
        List<String> argv = new java.util.ArrayList<>(List.of("ip", "netns", "exec", pod, env, "--abstract-name",
                node.abstractName));
        argv.addAll(List.of(args));
        return Host.run(argv.toArray(String[]::new));
    }

    /** The sh assignments cmdemux-env printed, read back by sh itself (eval, then a child's environment). */
    private static Map<String, String> evaluated(String pod, String... args) {
        StringBuilder cmd = new StringBuilder("eval \"$(" + env + " --abstract-name " + node.abstractName);
        for (String a : args) {
            cmd.append(' ').append(a);
        }
        cmd.append(")\" && env");
        Host.Result r = Host.run("ip", "netns", "exec", pod, "sh", "-c", cmd.toString());
        assertThat(r.exit()).as(r.stderr()).isZero();
        return vars(r.stdout());
    }

    private static Map<String, String> vars(String envOutput) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : envOutput.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && List.of("NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_SOCKET_IFNAME", "UCX_IB_GID_INDEX",
                    "UCX_NET_DEVICES",
                    "NVSHMEM_IB_GID_INDEX").contains(line.substring(0, eq))) {
                out.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return out;
    }

    /** `cmdemux gid-index` for the pod's IP: the CLI's own computation from the kernel's state. */
    private static int cliGidIndex(String pod, String ip, String type) {
        Host.Result r = null;
        // The one-shot CLI dumps every namespace on the host; other tests' namespaces changing meanwhile can
        // interrupt a dump too often (exit 3, saying so), which says nothing about this pod: ask again.
        for (int attempt = 0; attempt < 5 && (r == null || r.exit() == 3 && r.stderr()
                .contains("dump interrupted")); attempt++) {
            r = CniNode.cli("gid-index", "--netns", "/run/netns/" + pod, "--ip", ip, "--type", type,
                    "--rdma-port", "soft0=" + node.uplink + ":v1,v2");
        }
        assertThat(r.exit()).as(r.stderr()).isZero();
        return Integer.parseInt(r.stdout().strip());
    }

    /** The daemon's GID table entry for the pod's IP (QUERY gids on the host socket), or -1. */
    private static int daemonGidIndex(String pod, String ip, String type) throws Exception {
        long inode = CniNode.inode("/run/netns/" + pod);
        for (JsonNode e : node.query(QueryKind.GIDS)) {
            if (e.get("gid").asText().equals("::ffff:" + ip) && e.get("type").asText().equals(type)
                    && e.path("ndev").path("inode").asLong() == inode) {
                return e.get("index").asInt();
            }
        }
        return -1;
    }

    private static void awaitDaemonGid(String ip) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            for (JsonNode e : node.query(QueryKind.GIDS)) {
                if (e.get("gid").asText().equals("::ffff:" + ip)) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the daemon's table never got " + ip + ": " + node.daemonLog());
    }

    @Test
    void twoPodsGetTheirOwnDifferentGidIndexEqualToGidIndexAndToTheDaemonsTable() throws Exception {
        int[] v2 = new int[3];
        for (int i = 1; i <= 2; i++) {
            Map<String, String> vars = evaluated(POD[i]);
            v2[i] = Integer.parseInt(vars.get("NCCL_IB_GID_INDEX"));
            assertThat(v2[i]).as("pod %d against gid-index", i).isEqualTo(cliGidIndex(POD[i], IP[i], "v2"));
            assertThat(v2[i]).as("pod %d against the daemon's table", i).isEqualTo(daemonGidIndex(POD[i], IP[i],
                    "RoCE v2"));
            assertThat(vars.get("UCX_IB_GID_INDEX")).isEqualTo(vars.get("NCCL_IB_GID_INDEX"));
            assertThat(vars.get("NVSHMEM_IB_GID_INDEX")).isEqualTo(vars.get("NCCL_IB_GID_INDEX"));
            assertThat(vars.get("NCCL_IB_HCA")).isEqualTo("=soft0:1");
            assertThat(vars.get("UCX_NET_DEVICES")).isEqualTo("soft0:1");
            assertThat(vars.get("NCCL_SOCKET_IFNAME")).isEqualTo("=net1");

            int v1 = Integer.parseInt(evaluated(POD[i], "--gid-type", "roce-v1").get("NCCL_IB_GID_INDEX"));
            assertThat(v1).isEqualTo(cliGidIndex(POD[i], IP[i], "v1")).isEqualTo(daemonGidIndex(POD[i], IP[i],
                    "RoCE v1"));
            assertThat(v1).isNotEqualTo(v2[i]);
        }
        assertThat(v2[1]).as("the two pods' indices").isNotEqualTo(v2[2]);
    }

    @Test
    void theCommandAfterTheDashesRunsWithTheVariablesSet() throws Exception {
        Host.Result r = env(POD[2], "--", "sh", "-c",
                "echo \"$NCCL_IB_GID_INDEX|$UCX_NET_DEVICES|$NCCL_SOCKET_IFNAME|$1\"", "sh", "arg one");

        assertThat(r.exit()).as(r.stderr()).isZero();
        assertThat(r.stdout().strip()).isEqualTo(cliGidIndex(POD[2], IP[2], "v2") + "|soft0:1|=net1|arg one");
        Host.Result code = env(POD[2], "--", "sh", "-c", "exit 7");
        assertThat(code.exit()).as("the command's own exit status").isEqualTo(7);
        Host.Result missing = env(POD[2], "--", "/nonexistent/cmd");
        assertThat(missing.exit()).isEqualTo(127);
        assertThat(missing.stderr()).contains("cannot run /nonexistent/cmd");
    }

    @Test
    void jsonIsTheDaemonsAnswerForThePodsOwnNamespace() throws Exception {
        Host.Result r = env(POD[1], "--json");

        assertThat(r.exit()).as(r.stderr()).isZero();
        JsonNode a = CniRuntime.JSON.readTree(r.stdout());
        assertThat(a.at("/netns/inode").asLong()).isEqualTo(CniNode.inode("/run/netns/" + POD[1]));
        assertThat(a.at("/netns/names/0").asText()).isEqualTo(POD[1]);
        assertThat(a.get("interfaces")).hasSize(1);
        JsonNode i = a.get("interfaces").get(0);
        assertThat(i.get("ifname").asText()).isEqualTo("net1");
        assertThat(i.get("kind").asText()).isEqualTo("macvlan");
        assertThat(i.get("device").asText()).isEqualTo("soft0");
        assertThat(i.get("port").asInt()).isEqualTo(1);
        assertThat(i.get("linkLayer").asText()).isEqualTo("ethernet");
        assertThat(i.at("/gidIndex/roce-v2").asInt()).isEqualTo(cliGidIndex(POD[1], IP[1], "v2"));
        assertThat(i.at("/gidIndex/roce-v1").asInt()).isEqualTo(cliGidIndex(POD[1], IP[1], "v1"));
        assertThat(i.get("gids")).extracting(g -> g.get("ip").asText()).containsOnly(IP[1]);
    }

    @Test
    void noDaemonNoRdmaInterfaceAndNoGidOfTheTypeEachHaveTheirCodeAndSayWhatToDo() {
        Host.Result none = Host.run("ip", "netns", "exec", POD[1], env, "--abstract-name", "cmdemux-nobody-"
                + node.ns.prefix());
        assertThat(none.exit()).as(none.stderr()).isEqualTo(3);
        assertThat(none.stderr()).contains("no cmdemux daemon answers on @cmdemux-nobody").contains("cmdemux serve")
                .contains("--wait");
        assertThat(none.stdout()).isEmpty();

        Host.Result veth = env(POD[3]);
        assertThat(veth.exit()).as(veth.stderr()).isEqualTo(1);
        assertThat(veth.stderr()).contains("has no RDMA interface").contains("veth").contains("gids check");
        assertThat(veth.stdout()).isEmpty();

        Host.Result ib = env(POD[1], "--gid-type", "ib");
        assertThat(ib.exit()).as(ib.stderr()).isEqualTo(4);
        assertThat(ib.stderr()).contains("no ib GID").contains("--gid-type");

        Host.Result usage = env(POD[1], "--gid-type", "v3");
        assertThat(usage.exit()).isEqualTo(2);
        assertThat(usage.stderr()).contains("roce-v2, roce-v1 or ib");
    }

    @Test
    void waitWaitsForAGidThatComesAndGivesUpOnOneThatDoesNot() throws Exception {
        String pod = node.pod("p4").substring("/run/netns/".length());
        String p = node.ns.prefix();
        Host.bash("set -e\nip link add " + p + "m4 link " + node.uplink + " type macvlan mode bridge\n"
                + "ip link set " + p + "m4 netns " + pod + "\nip -n " + pod + " link set " + p + "m4 name net1\n"
                + "ip -n " + pod + " link set net1 up\n");
        long t0 = System.nanoTime();
        Host.Result gaveUp = Host.run("ip", "netns", "exec", pod, env, "--abstract-name", node.abstractName, "--wait",
                "1");
        double waited = (System.nanoTime() - t0) / 1e9;
        assertThat(gaveUp.exit()).as(gaveUp.stderr()).isEqualTo(4);
        assertThat(gaveUp.stderr()).contains("no roce-v2 GID yet");
        assertThat(waited).as("it waited its second").isGreaterThanOrEqualTo(1.0);

        Process waiting = new ProcessBuilder("ip", "netns", "exec", pod, env, "--abstract-name", node.abstractName,
                "--wait", "30")
                .redirectErrorStream(true).start();
        Thread.sleep(1000);
        assertThat(waiting.isAlive()).as("still waiting for the GID").isTrue();
        Host.sh("ip", "-n", pod, "addr", "add", "10.77.0.5/24", "dev", "net1");
        assertThat(waiting.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String out = new String(waiting.getInputStream().readAllBytes());
        assertThat(waiting.exitValue()).as(out).isZero();
        assertThat(vars(out.replace("'", ""))).containsEntry("NCCL_IB_GID_INDEX", Integer.toString(cliGidIndex(pod,
                "10.77.0.5", "v2")));
    }

    @Test
    void execOfTrueCostsAFewMilliseconds() throws Exception {
        int runs = 20;
        long t0 = System.nanoTime();
        for (int i = 0; i < runs; i++) {
            Host.Result r = env(POD[1], "--", "/bin/true");
            assertThat(r.exit()).as(r.stderr()).isZero();
        }
        double each = (System.nanoTime() - t0) / 1e6 / runs;
        long t1 = System.nanoTime();
        for (int i = 0; i < runs; i++) {
            Host.run("ip", "netns", "exec", POD[1], "/bin/true");
        }
        double bare = (System.nanoTime() - t1) / 1e6 / runs;
        System.out.printf("cmdemux-env -- /bin/true: %.1f ms per run (ip netns exec /bin/true alone: %.1f ms)%n", each,
                bare);
        assertThat(each - bare).as("one round trip to the daemon, not a JVM start").isLessThan(500);
    }
}
