package io.cmdemux.gid;

import static io.cmdemux.namespaces.testkit.Host.bash;
import static io.cmdemux.namespaces.testkit.Host.sh;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.TopologyWatcher;
import io.cmdemux.namespaces.testkit.LinkLocal;
import io.cmdemux.namespaces.testkit.Netns;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A soft port on a real veth uplink, macvlan pods made with iproute2, followed live through the
 * watcher. Expected GIDs come from iproute2's view (MACs, addresses, ifindexes, namespace
 * inodes) and the kernel's rules, worked out here. Needs root.
 */
class SoftRoceLiveAsRootTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private Netns ns;
    private NetnsExecutor exec;
    private TopologyWatcher watcher;

    @BeforeEach
    void start() throws Exception {
        ns = new Netns("gl");
        exec = new NetnsExecutor(2);
        watcher = new TopologyWatcher(new NetnsDiscovery(), exec);
        watcher.start();
    }

    @AfterEach
    void stop() {
        if (watcher != null) {
            watcher.close();
        }
        if (exec != null) {
            exec.close();
        }
        ns.close();
    }

    /** What the test expects in one slot: GID text, and the ndev as namespace inode + ifindex. */
    record Want(int index, String gid, long inode, int ifindex) {
        @Override
        public String toString() {
            return index + " " + gid + " " + ifindex + "@" + inode;
        }
    }

    private static List<String> table(SoftRocePort p) {
        List<String> out = new ArrayList<>();
        if (p.device() == null) {
            return out;
        }
        for (GidEntry e : p.device().ports().get(0).gids()) {
            out.add(new Want(e.index(), e.gid().toString(), e.ndev().netns().inode(), e.ndev().ifindex()).toString());
        }
        return out;
    }

    private List<String> await(SoftRocePort p, String what, Predicate<List<String>> ok) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 8000;
        while (true) {
            List<String> t = table(p);
            if (ok.test(t)) {
                return t;
            }
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError("within 8 s the soft port never showed " + what + "; table: " + t);
            }
            TopologySnapshot s = watcher.current();
            watcher.awaitNewer(s.generation(), Math.min(left, 200));
        }
    }

    private static JsonNode link(String netns, String dev) throws Exception {
        String out = netns == null
                ? sh("ip", "-j", "link", "show", "dev", dev)
                : sh("ip", "-n", netns, "-j", "link", "show", "dev", dev);
        return JSON.readTree(out).get(0);
    }

    private static long inode(String netnsPath) {
        return Long.parseLong(sh("stat", "-L", "-c", "%i", netnsPath).strip());
    }

    /** A pod with macvlan net1 on the uplink; returns its two expected entries (IPv4 first, then link-local). */
    private List<Want> macvlanPod(String suffix, String uplink, String ip, int v4Index, int llIndex) throws Exception {
        String pod = ns.add(suffix);
        String mv = ns.name("m" + suffix);
        bash("ip link add " + mv + " link " + uplink + " type macvlan mode bridge && ip link set " + mv + " netns "
                + pod
                + " && ip -n " + pod + " link set " + mv + " name net1 && ip -n " + pod + " addr add " + ip
                + "/24 dev net1"
                + " && ip -n " + pod + " link set net1 up");
        JsonNode l = link(pod, "net1");
        long inode = inode("/run/netns/" + pod);
        int ifindex = l.get("ifindex").asInt();
        return List.of(new Want(v4Index, "::ffff:" + ip, inode, ifindex),
                new Want(llIndex, LinkLocal.ofMac(l.get("address").asText()), inode, ifindex));
    }

    @Test
    void macvlanPodsGetGidsWithTheirMacvlanAsNdevAndADeletedPodsSlotsGoToTheNextPod() throws Exception {
        String uplink = ns.hostLink("up");
        // No link-local on the uplink (addrgenmode none), so the table starts with the default GID alone.
        bash("ip link add " + uplink + " type veth peer name " + ns.name("upp") + " && ip link set " + uplink
                + " addrgenmode none" + " && ip link set " + uplink + " up && ip link set " + ns.name("upp") + " up");
        JsonNode up = link(null, uplink);
        long hostInode = inode("/proc/self/ns/net");
        Want def = new Want(0, LinkLocal.ofMac(up.get("address").asText()), hostInode, up.get("ifindex").asInt());

        SoftRocePort port = new SoftRocePort(SoftPortSpec.parse("soft0=" + uplink));
        port.attach(watcher);
        await(port, "the default GID", t -> t.equals(List.of(def.toString())));

        // Kernel rule: each new GID takes the lowest free non-reserved slot; index 0 is reserved
        // for the one default GID (RoCE v2 only). The IPv4 address is added before the link comes
        // up, so it precedes the link-local address that addrconf adds on NETDEV_UP.
        List<Want> want = new ArrayList<>(List.of(def));
        List<Want> p1 = macvlanPod("p1", uplink, "10.66.0.1", 1, 2);
        want.addAll(p1);
        await(port, "pod p1", t -> t.containsAll(strings(p1)));
        List<Want> p2 = macvlanPod("p2", uplink, "10.66.0.2", 3, 4);
        want.addAll(p2);
        await(port, "pod p2", t -> t.containsAll(strings(p2)));
        List<Want> p3 = macvlanPod("p3", uplink, "10.66.0.3", 5, 6);
        want.addAll(p3);
        List<String> full = await(port, "pod p3", t -> t.containsAll(strings(p3)));
        assertThat(full).containsExactlyElementsOf(strings(want));

        // A veth-only pod: a veth is no upper of the uplink, so it adds nothing.
        String vpod = ns.add("vp");
        String vh = ns.hostLink("vh");
        bash("ip link add " + vh + " type veth peer name eth0 netns " + vpod + " && ip -n " + vpod
                + " addr add 10.67.0.2/24 dev eth0" + " && ip -n " + vpod + " link set eth0 up && ip link set " + vh
                + " up");
        long vInode = inode("/run/netns/" + vpod);
        TopologySnapshot withVeth = awaitTopology(s -> s.findNamespace(vpod).map(n -> n.linkByName("eth0") != null
                && !n.addressesOf(n.linkByName("eth0").ifindex()).isEmpty()).orElse(false));
        assertThat(table(port)).containsExactlyElementsOf(strings(want));
        assertThat(port.device().ports().get(0).gids()).noneMatch(e -> e.ndev().netns().inode() == vInode);
        List<GidProblem> problems = GidCheck.run(withVeth,
                new RdmaTopology(withVeth.generation(), RdmaTopology.NetnsMode.SHARED, List.of(port.device())),
                List.of());
        assertThat(problems)
                .filteredOn(p ->
                        p.kind() == GidProblem.Kind.NOT_AN_UPPER && p.subject().equals(vpod + "/eth0"))
                .hasSize(1);

        // Deleting p2 destroys its macvlan (NETDEV_UNREGISTER: all its GIDs go), freeing 3 and 4.
        sh("ip", "netns", "del", ns.name("p2"));
        ns.forget(ns.name("p2"));
        want.removeAll(p2);
        await(port, "p2's entries gone", t -> t.equals(strings(want)));
        // The next pod reuses the lowest free slots: 3 for its IPv4, 4 for its link-local.
        List<Want> p4 = macvlanPod("p4", uplink, "10.66.0.4", 3, 4);
        want.addAll(p4);
        want.sort((a, b) -> Integer.compare(a.index(), b.index()));
        List<String> after = await(port, "pod p4 in the freed slots", t -> t.containsAll(strings(p4)));
        assertThat(after).containsExactlyElementsOf(strings(want));
    }

    private TopologySnapshot awaitTopology(Predicate<TopologySnapshot> ok) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 8000;
        TopologySnapshot s = watcher.current();
        while (!ok.test(s)) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError("within 8 s the watcher never showed the veth pod");
            }
            TopologySnapshot n = watcher.awaitNewer(s.generation(), left);
            s = n == null ? watcher.current() : n;
        }
        return s;
    }

    private static List<String> strings(List<Want> w) {
        return w.stream().map(Want::toString).toList();
    }
}
