package io.cmdemux.namespaces;

import static io.cmdemux.namespaces.testkit.Host.bash;
import static io.cmdemux.namespaces.testkit.Host.sh;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.testkit.Netns;
import io.cmdemux.netdev.InetAddresses;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The watcher against real changes made with iproute2. Needs root. */
class TopologyWatcherAsRootTest {
    private Netns ns;
    private NetnsExecutor exec;
    private TopologyWatcher watcher;

    @BeforeEach
    void start() throws Exception {
        ns = new Netns("tw");
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

    /** Waits (up to 5 s) for a published generation in which the condition holds. */
    private TopologySnapshot await(String what, Predicate<TopologySnapshot> condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 5000;
        TopologySnapshot s = watcher.current();
        while (!condition.test(s)) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError(
                        "within 5 s the watcher never showed: " + what + " (generation " + s.generation() + ")");
            }
            TopologySnapshot next = watcher.awaitNewer(s.generation(), left);
            s = next == null ? watcher.current() : next;
        }
        return s;
    }

    private static Optional<NetnsState> netns(TopologySnapshot s, String name) {
        return s.findNamespace(name);
    }

    private static boolean has(TopologySnapshot s, String netns, String link) {
        return netns(s, netns).map(st -> st.linkByName(link) != null).orElse(false);
    }

    @Test
    void newNamespaceAndAMacvlanMovedIntoItAppearInANewGeneration() throws Exception {
        long g0 = watcher.current().generation();
        String pod = ns.add("pod");
        String up = ns.hostLink("up");
        bash("ip link add " + up + " type veth peer name " + ns.name("upp") + " && ip link add " + ns.name("mv")
                + " link " + up + " type macvlan mode bridge && ip link set " + ns.name("mv") + " netns " + pod);
        TopologySnapshot s = await("macvlan in " + pod, t -> has(t, pod, ns.name("mv")));
        assertThat(s.generation()).isGreaterThan(g0);
        // the move left no stale copy in the host, and the parent resolves across namespaces
        assertThat(s.hostState().linkByName(ns.name("mv"))).isNull();
        NetnsState p = s.findNamespace(pod).orElseThrow();
        LinkRef mv = new LinkRef(p.id(), p.linkByName(ns.name("mv")).ifindex());
        assertThat(s.parentOf(mv)).contains(new LinkRef(s.host(), s.hostState().linkByName(up).ifindex()));
    }

    @Test
    void linkMovedBetweenNamespacesLeavesNoStaleEntry() throws Exception {
        String a = ns.add("a");
        String b = ns.add("b");
        bash("ip -n " + a + " link add " + ns.name("v") + " type veth peer name " + ns.name("vp"));
        await("veth in " + a, t -> has(t, a, ns.name("v")));
        sh("ip", "-n", a, "link", "set", ns.name("v"), "netns", b);
        TopologySnapshot s = await("veth moved to " + b, t -> has(t, b, ns.name("v")) && !has(t, a, ns.name("v")));
        assertThat(has(s, a, ns.name("vp"))).isTrue();
    }

    @Test
    void deletedNamespaceDisappears() throws Exception {
        String gone = ns.add("gone");
        await(gone + " appears", t -> netns(t, gone).isPresent());
        sh("ip", "netns", "del", gone);
        ns.forget(gone);
        await(gone + " disappears", t -> netns(t, gone).isEmpty());
    }

    @Test
    void ipv6AddressAddAndRemoveAreSeen() throws Exception {
        String pod = ns.add("v6");
        await(pod + " appears", t -> netns(t, pod).isPresent());
        sh("ip", "-n", pod, "addr", "add", "2001:db8:5::7/64", "dev", "lo");
        var addr = InetAddresses.parse("2001:db8:5::7");
        TopologySnapshot s = await("2001:db8:5::7 in " + pod,
                t -> netns(t, pod).get().addresses().stream()
                        .anyMatch(x -> x.address().equals(addr)));
        assertThat(s.byIp(addr)).extracting(r -> r.link().netns()).containsExactly(netns(s, pod).get().id());
        sh("ip", "-n", pod, "addr", "del", "2001:db8:5::7/64", "dev", "lo");
        s = await("2001:db8:5::7 removed",
                t -> netns(t, pod).get().addresses().stream()
                        .noneMatch(x -> x.address().equals(addr)));
        assertThat(s.byIp(addr)).isEmpty();
    }

    /**
     * Addresses added one by one, of both families, scopes and ranks, on two devices, then a primary deleted with
     * promote_secondaries on: the watcher, which applies each notification to what it had, lists them as a fresh
     * dump does (AddressOrder; the daemon's answers to CLI verbs must match the one-shot run's byte for byte).
     * Not here: a second link-local address beside the links' own, which AddressOrder cannot place (see there).
     */
    @Test
    void addressesChangedOneByOneAreListedAsAFreshDumpListsThem() throws Exception {
        String pod = ns.add("ao");
        await(pod + " appears", t -> netns(t, pod).isPresent());
        bash("set -e\n"
                + "ip -n " + pod + " link add d0 type veth peer name d1\n"
                + "ip -n " + pod + " link set d0 up; ip -n " + pod + " link set d1 up\n"
                + "ip netns exec " + pod + " sysctl -qw net.ipv4.conf.d0.promote_secondaries=1\n"
                + "ip -n " + pod + " addr add 10.5.0.1/24 dev d0\n"
                + "ip -n " + pod + " addr add fd01::1/64 dev d0 nodad\n"
                + "ip -n " + pod + " addr add fd01::2/64 dev d0 nodad\n"
                + "ip -n " + pod + " addr add 10.5.0.2/24 dev d0\n"
                + "ip -n " + pod + " addr add 10.5.0.3/24 dev d0\n"
                + "ip -n " + pod + " addr add 10.6.0.1/24 dev d0\n"
                + "ip -n " + pod + " addr add 10.4.0.1/16 dev d1\n"
                + "ip -n " + pod + " addr add 127.0.0.2/8 scope host dev d0\n"
                + "ip -n " + pod + " addr add 10.5.0.1/24 dev lo\n"
                + "ip -n " + pod + " addr del 10.5.0.1/24 dev d0\n");
        var promoted = InetAddresses.parse("10.5.0.2");
        await("10.5.0.2 promoted in " + pod, t -> netns(t, pod).get().addresses().stream()
                .anyMatch(a -> a.address().equals(promoted) && (a.flags() & 1) == 0));
        // The links' own fe80:: addresses come when the kernel's link watch marks them up, which may be after the
        // last `ip` has returned and between catchUp and the dump: compare once both have the same addresses.
        NetnsState dumped;
        NetnsState watched;
        long deadline = System.currentTimeMillis() + 5000;
        do {
            Thread.sleep(100);
            watcher.catchUp();
            LiveDumper.HostDumps fresh = LiveDumper.dumpHost();
            dumped = TopologySnapshot.build(1, fresh.host(), fresh.dumps()).findNamespace(pod).orElseThrow();
            watched = netns(watcher.current(), pod).orElseThrow();
        } while (!new java.util.HashSet<>(listed(dumped)).equals(new java.util.HashSet<>(listed(watched)))
                && System.currentTimeMillis() < deadline);

        assertThat(listed(watched)).as("the watcher's order against a fresh dump's").isEqualTo(listed(dumped));
        assertThat(listed(dumped)).hasSizeGreaterThan(10);
    }

    /**
     * A link that comes up gets its link-local address from the kernel at once, listed by a dump as tentative, but
     * announced only when duplicate address detection ends, a second or more later. The watcher reads the
     * namespace's addresses again when a link becomes ready for it, so it lists the address while it is tentative,
     * as a dump does (the CI run of 2026-12-04 found the daemon's `topology` without it, the one-shot's with it).
     * Both a veth inside the pod and a macvlan of a host link moved into it, then set up.
     */
    @Test
    void aLinksOwnLinkLocalAddressIsListedWhileStillTentativeAsADumpListsIt() throws Exception {
        String pod = ns.add("ll");
        String up = ns.hostLink("llu");
        String mv = ns.name("llm");
        await(pod + " appears", t -> netns(t, pod).isPresent());
        bash("set -e\n"
                + "ip link add " + up + " type veth peer name " + ns.name("llp") + "\n"
                + "ip link set " + up + " up; ip link set " + ns.name("llp") + " up\n"
                + "ip link add " + mv + " link " + up + " type macvlan mode bridge\n"
                + "ip link set " + mv + " netns " + pod + "\n"
                + "ip -n " + pod + " link add d0 type veth peer name d1\n"
                + "ip -n " + pod + " link set d0 up; ip -n " + pod + " link set d1 up\n"
                + "ip -n " + pod + " link set " + mv + " up\n");
        for (String link : java.util.List.of("d0", "d1", mv)) {
            await("a tentative fe80:: address on " + link + " in " + pod, t -> netns(t, pod)
                    .map(st -> st.linkByName(link) != null && st.addresses().stream().anyMatch(a ->
                            a.ifindex() == st.linkByName(link).ifindex() && a.scope() == 253
                                    && (a.flags() & IFA_F_TENTATIVE) != 0))
                    .orElse(false));
        }
    }

    private static final int IFA_F_TENTATIVE = 0x40;

    private static java.util.List<String> listed(NetnsState s) {
        return s.addresses().stream().map(a -> a.ifindex() + " " + InetAddresses.toText(a.address()) + "/"
                + a.prefixLen() + " scope " + a.scope() + " flags " + Integer.toHexString(a.flags() & 1)).toList();
    }

    /**
     * An address deleted (`ip addr del` has returned) is gone from the snapshot when catchUp returns, even while
     * the event thread is held up in a listener: what the ingress relies on to never decide a request that came
     * after the change on the state before it.
     */
    @Test
    void afterCatchUpTheSnapshotHasEveryChangeTheKernelHadAnnounced() throws Exception {
        String pod = ns.add("cu");
        await(pod + " appears", t -> netns(t, pod).isPresent());
        var addr = InetAddresses.parse("10.97.0.7");
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean hold = new java.util.concurrent.atomic.AtomicBoolean(true);
        watcher.addListener(t -> {
            if (hold.get() && t.byIp(addr).size() == 1) {
                hold.set(false);
                held.countDown();
                sleep(300); // the event thread, busy with the address's arrival
            }
        });
        sh("ip", "-n", pod, "addr", "add", "10.97.0.7/32", "dev", "lo");
        assertThat(held.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        sh("ip", "-n", pod, "addr", "del", "10.97.0.7/32", "dev", "lo");
        assertThat(watcher.catchUp()).isTrue();
        assertThat(watcher.current().byIp(addr)).as("the deletion, right after catchUp").isEmpty();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void renameIsSeenAndTheOldNameIsGone() throws Exception {
        String pod = ns.add("rn");
        sh("ip", "-n", pod, "link", "add", "before", "type", "veth", "peer", "name", "peer0");
        await("before", t -> has(t, pod, "before"));
        sh("ip", "-n", pod, "link", "set", "before", "name", "after");
        TopologySnapshot s = await("after", t -> has(t, pod, "after"));
        assertThat(has(s, pod, "before")).isFalse();
        assertThat(netns(s, pod).get().linkByName("after").kind()).isEqualTo("veth");
    }
}
