package io.cmdemux.namespaces;

import static io.cmdemux.namespaces.testkit.Host.bash;
import static io.cmdemux.namespaces.testkit.Host.sh;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.namespaces.testkit.Netns;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import io.cmdemux.netdev.RtnlClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Builds a real topology with iproute2 and checks our model of it, field by field, against
 * `ip -d -j link show` and `ip -j addr show` in every namespace. Needs root.
 */
class LiveTopologyAsRootTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Netns ns;
    private static String up;
    private static List<String> pods;
    private static TopologySnapshot snap;

    @BeforeAll
    static void buildTopology() throws Exception {
        ns = new Netns("tt");
        up = ns.hostLink("up");
        String br = ns.hostLink("br");
        String vx = ns.hostLink("vx");
        String mh = ns.hostLink("mh");
        String ren = ns.hostLink("ren1");
        pods = List.of(ns.add("pod1"), ns.add("pod2"), ns.add("pod3"));
        String p = ns.prefix();
        bash("set -e\n"
                + "ip link add " + up + " type veth peer name " + p + "upp\n"
                + "ip link set " + up + " up; ip link set " + p + "upp up\n"
                // three pods, each with a macvlan of the host veth, moved in and renamed there
                + "for i in 1 2 3; do\n"
                + "  ip link add " + p + "m$i link " + up + " type macvlan mode bridge\n"
                + "  ip link set " + p + "m$i netns " + p + "pod$i\n"
                + "  ip -n " + p + "pod$i link set " + p + "m$i name net1\n"
                + "  ip -n " + p + "pod$i addr add 10.77.$i.2/24 dev net1\n"
                + "  ip -n " + p + "pod$i addr add 2001:db8:77::$i/64 dev net1 nodad\n"
                + "  ip -n " + p + "pod$i link set net1 up\n"
                + "done\n"
                // a bridge with veth ports, one port's peer in pod3
                + "ip link add " + br + " type bridge\n"
                + "ip link add " + p + "b1 type veth peer name " + p + "b1p\n"
                + "ip link add " + p + "b2 type veth peer name " + p + "b2p\n"
                + "ip link set " + p + "b1 master " + br + "; ip link set " + p + "b2 master " + br + "\n"
                + "ip link set " + p + "b1p netns " + p + "pod3\n"
                + "ip link set " + br + " up\n"
                + "ip addr add 198.51.100.1/24 dev " + br + "\n"
                // a vxlan over the uplink, a macvlan beside its parent, and a renamed device
                + "ip link add " + vx + " type vxlan id 42 dev " + up + " dstport 4789\n"
                + "ip link add " + mh + " link " + up + " type macvlan mode private\n"
                + "ip link add " + p + "ren0 type veth peer name " + p + "ren0p\n"
                + "ip link set " + p + "ren0 name " + ren + "\n"
                + "ip link set " + ren + " mtu 1400\n");
        ns.hostLink("b1");
        ns.hostLink("b2");
        try (NetnsExecutor exec = new NetnsExecutor(2); RtnlClient host = RtnlClient.open()) {
            NetnsDiscovery.Scan scan = new NetnsDiscovery().scan();
            snap = TopologySnapshot.build(1, scan.self(), new LiveDumper(exec, host).dumpAll(scan));
        }
    }

    @AfterAll
    static void cleanUp() {
        if (ns != null) {
            ns.close();
        }
    }

    private static NetnsState state(String name) {
        return snap.findNamespace(name)
                .orElseThrow(() -> new AssertionError("namespace " + name + " missing from the snapshot"));
    }

    @Test
    void everyPodLinkMatchesIproute2FieldByField() throws Exception {
        for (String pod : pods) {
            compareLinks(state(pod), ipLinks(pod), Set.of());
            compareAddresses(state(pod), pod);
        }
    }

    @Test
    void hostLinksWeCreatedMatchIproute2FieldByField() throws Exception {
        // Other processes may add host links while we run; compare ours and every link both sides saw.
        NetnsState host = snap.hostState();
        Set<String> ours = new TreeSet<>();
        for (Link l : host.links().values()) {
            if (l.name().startsWith(ns.prefix())) {
                ours.add(l.name());
            }
        }
        assertThat(ours)
                .contains(up, ns.name("br"), ns.name("vx"), ns.name("mh"), ns.name("ren1"), ns.name("b1"),
                        ns.name("b2"), ns.name("upp"));
        compareLinks(host, ipLinks(null), ours);
    }

    @Test
    void podMacvlansResolveToTheHostVethAcrossNamespaces() {
        Link uplink = snap.hostState().linkByName(up);
        for (String pod : pods) {
            NetnsState s = state(pod);
            Link net1 = s.linkByName("net1");
            assertThat(net1.kind()).isEqualTo("macvlan");
            assertThat(snap.parentOf(new LinkRef(s.id(), net1.ifindex())))
                    .contains(new LinkRef(snap.host(), uplink.ifindex()));
        }
        // and the other way round: the uplink's uppers are the three pod macvlans plus the host one
        List<String> uppers = new ArrayList<>();
        for (LinkRef r : snap.uppersOf(new LinkRef(snap.host(), uplink.ifindex()))) {
            uppers.add(snap.namespace(r.netns()).displayName() + "/" + snap.link(r).name());
        }
        assertThat(uppers)
                .containsExactlyInAnyOrder(
                        pods.get(0) + "/net1", pods.get(1) + "/net1", pods.get(2) + "/net1", "host/" + ns.name("mh"));
    }

    @Test
    void bridgePortsHaveTheBridgeAsMasterAndAVethPeerInAPod() {
        NetnsState host = snap.hostState();
        Link br = host.linkByName(ns.name("br"));
        assertThat(br.kind()).isEqualTo("bridge");
        List<String> ports = snap.slavesOf(new LinkRef(host.id(), br.ifindex())).stream()
                .map(r -> snap.link(r).name())
                .toList();
        assertThat(ports).containsExactlyInAnyOrder(ns.name("b1"), ns.name("b2"));
        NetnsState pod3 = state(pods.get(2));
        Link peer = pod3.linkByName(ns.name("b1p"));
        assertThat(snap.parentOf(new LinkRef(pod3.id(), peer.ifindex())))
                .contains(new LinkRef(host.id(), host.linkByName(ns.name("b1")).ifindex()));
        // a veth peer is not an upper: veths get no GIDs from their peers
        assertThat(snap.uppersOf(new LinkRef(host.id(), host.linkByName(ns.name("b1")).ifindex())))
                .containsExactly(new LinkRef(host.id(), br.ifindex()));
    }

    @Test
    void renamedDeviceAndVxlanAreModelled() {
        NetnsState host = snap.hostState();
        assertThat(host.linkByName(ns.name("ren0"))).isNull();
        assertThat(host.linkByName(ns.name("ren1")).mtu()).isEqualTo(1400);
        Link vx = host.linkByName(ns.name("vx"));
        assertThat(vx.info()).isEqualTo(new LinkInfo.Vxlan(java.util.OptionalInt.of(42)));
        // `dev` of a vxlan is IFLA_VXLAN_LINK inside its info data, not IFLA_LINK: no parent, not an upper
        assertThat(snap.parentOf(new LinkRef(host.id(), vx.ifindex()))).isEmpty();
    }

    @Test
    void namespaceIdentityIsTheInodeThatStatReports() {
        for (String pod : pods) {
            long inode = Long.parseLong(sh("stat", "-L", "-c", "%i", "/run/netns/" + pod).trim());
            assertThat(state(pod).id().inode()).isEqualTo(inode);
            assertThat(state(pod).names()).containsExactly(pod);
        }
        long self = Long.parseLong(sh("stat", "-L", "-c", "%i", "/proc/self/ns/net").trim());
        assertThat(snap.host().inode()).isEqualTo(self);
        assertThat(snap.namespaces().get(0).host()).isTrue();
    }

    private static JsonNode ipLinks(String netns) throws Exception {
        String out = netns == null
                ? sh("ip", "-d", "-j", "link", "show")
                : sh("ip", "-n", netns, "-d", "-j", "link", "show");
        return JSON.readTree(out);
    }

    /** Compares every link iproute2 shows (restricted to {@code only} when non-empty). */
    private static void compareLinks(NetnsState s, JsonNode ip, Set<String> only) {
        Map<Integer, JsonNode> byIndex = new HashMap<>();
        for (JsonNode l : ip) {
            byIndex.put(l.get("ifindex").asInt(), l);
        }
        if (only.isEmpty()) {
            assertThat(s.links().keySet())
                    .as("ifindexes in %s", s.displayName())
                    .isEqualTo(new TreeSet<>(byIndex.keySet()));
        }
        for (Link ours : s.links().values()) {
            if (!only.isEmpty() && !only.contains(ours.name())) {
                continue;
            }
            JsonNode l = byIndex.get(ours.ifindex());
            assertThat(l).as("iproute2 shows %s", ours.name()).isNotNull();
            String what = s.displayName() + "/" + ours.name();
            assertThat(ours.name()).as(what).isEqualTo(l.get("ifname").asText());
            assertThat(ours.mtu()).as(what + " mtu").isEqualTo(l.get("mtu").asInt());
            assertThat(ours.up()).as(what + " UP").isEqualTo(contains(l.get("flags"), "UP"));
            assertThat(ours.operstateName()).as(what + " operstate").isEqualTo(l.get("operstate").asText());
            if (l.has("address") && l.path("link_type").asText().matches("ether|loopback")) {
                assertThat(ours.mac()).as(what + " mac").hasToString(l.get("address").asText());
            }
            String kind = l.path("linkinfo").path("info_kind").asText(null);
            if (kind != null) {
                assertThat(ours.kind()).as(what + " kind").isEqualTo(kind);
            } else {
                assertThat(ours.kind())
                        .as(what + " kind")
                        .isEqualTo(l.path("link_type").asText().equals("loopback") ? "loopback" : "device");
            }
            if (ours.info() instanceof LinkInfo.Macvlan m) {
                assertThat(m.modeName())
                        .as(what + " macvlan mode")
                        .isEqualTo(l.path("linkinfo")
                                .path("info_data")
                                .path("mode")
                                .asText());
            }
            if (l.has("master")) {
                Link master = s.link(ours.masterIfindex());
                assertThat(master).as(what + " master").isNotNull();
                assertThat(master.name()).as(what + " master").isEqualTo(l.get("master").asText());
            } else {
                assertThat(ours.masterIfindex()).as(what + " master").isZero();
            }
            if (l.has("link_netnsid")) {
                assertThat(ours.parentNsid()).as(what + " link_netnsid").hasValue(l.get("link_netnsid").asInt());
                assertThat(ours.parentIfindex()).as(what + " link_index").isEqualTo(l.get("link_index").asInt());
            } else if (l.has("link")) {
                assertThat(ours.parentNsid()).as(what + " parent nsid").isEmpty();
                assertThat(s.link(ours.parentIfindex()).name()).as(what + " link").isEqualTo(l.get("link").asText());
            } else if (!l.has("link_index")) {
                assertThat(ours.hasParent()).as(what + " has no parent").isFalse();
            }
        }
    }

    private static void compareAddresses(NetnsState s, String netns) throws Exception {
        JsonNode ip = JSON.readTree(sh("ip", "-n", netns, "-j", "addr", "show"));
        Set<String> theirs = new TreeSet<>();
        for (JsonNode l : ip) {
            for (JsonNode a : l.path("addr_info")) {
                theirs.add(l.get("ifindex").asInt() + " " + a.get("local").asText() + "/" + a.get("prefixlen").asInt());
            }
        }
        Set<String> ours = new TreeSet<>();
        for (Address a : s.addresses()) {
            ours.add(a.ifindex() + " " + a.cidr());
        }
        assertThat(ours).as("addresses in %s", netns).isEqualTo(theirs);
    }

    private static boolean contains(JsonNode array, String v) {
        for (JsonNode n : array) {
            if (n.asText().equals(v)) {
                return true;
            }
        }
        return false;
    }
}
