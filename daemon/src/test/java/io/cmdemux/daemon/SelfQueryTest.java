package io.cmdemux.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.Via;
import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.PkeyTable;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.LinkInfo;
import io.cmdemux.pods.Attachment;
import io.cmdemux.pods.PodDirectory;
import io.cmdemux.pods.PodKey;
import io.cmdemux.pods.PodRef;
import io.cmdemux.pods.PodRegistration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * QUERY self, on a host made as the kernel dumps it: up0 carries soft port rxe0 with RoCE v1 and v2; pod1
 * and pod2 have macvlans of it whose GIDs sit at different indices (pod2's IPv6 link-local GID below its
 * IPv4 one), pod3 has only a veth, and pod4 holds pod1's IP too, at higher indices. The answer describes
 * the namespace the caller was placed in and no other; the indices are those of the table built here.
 */
class SelfQueryTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final DumpBuilder b = new DumpBuilder();
    private final NetnsId host = b.host();
    private final NetnsId pod1 = b.pod("pod1", 1);
    private final NetnsId pod2 = b.pod("pod2", 2);
    private final NetnsId pod3 = b.pod("pod3", 3);
    private final NetnsId pod4 = b.pod("pod4", 4);
    private final Queries queries;

    SelfQueryTest() {
        b.link(host, 1, "lo").arphrd(772).add();
        b.link(host, 2, "up0").mac("02:00:00:00:00:02").add();
        b.link(pod1, 1, "lo").arphrd(772).add();
        b.link(pod1, 5, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).mac("02:aa:00:00:00:01").add()
                .addr(pod1, 5, "10.0.0.11/24");
        b.link(pod2, 1, "lo").arphrd(772).add();
        b.link(pod2, 7, "rdma0").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).mac("02:aa:00:00:00:02").add()
                .addr(pod2, 7, "10.0.0.12/24").addr(pod2, 7, "fe80::aa:ff:fe00:2/64");
        b.link(pod3, 1, "lo").arphrd(772).add();
        b.link(pod3, 9, "eth0").kind("veth").mac("02:bb:00:00:00:03").add().addr(pod3, 9, "10.0.0.13/24");
        b.link(pod4, 1, "lo").arphrd(772).add();
        b.link(pod4, 4, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).mac("02:aa:00:00:00:04").add()
                .addr(pod4, 4, "10.0.0.11/24");
        LinkRef up0 = new LinkRef(host, 2);
        LinkRef p1 = new LinkRef(pod1, 5);
        LinkRef p2 = new LinkRef(pod2, 7);
        LinkRef p4 = new LinkRef(pod4, 4);
        List<GidEntry> gids = new ArrayList<>();
        gids.add(gid(0, "fe80::ff:fe00:2", GidType.ROCE_V1, up0));
        gids.add(gid(1, "fe80::ff:fe00:2", GidType.ROCE_V2, up0));
        gids.add(gid(2, "::ffff:10.0.0.11", GidType.ROCE_V1, p1));
        gids.add(gid(3, "::ffff:10.0.0.11", GidType.ROCE_V2, p1));
        gids.add(gid(4, "fe80::aa:ff:fe00:2", GidType.ROCE_V1, p2));
        gids.add(gid(5, "fe80::aa:ff:fe00:2", GidType.ROCE_V2, p2));
        gids.add(gid(6, "::ffff:10.0.0.12", GidType.ROCE_V1, p2));
        gids.add(gid(7, "::ffff:10.0.0.12", GidType.ROCE_V2, p2));
        gids.add(gid(8, "::ffff:10.0.0.11", GidType.ROCE_V1, p4));
        gids.add(gid(9, "::ffff:10.0.0.11", GidType.ROCE_V2, p4));
        RdmaPort port = new RdmaPort(1, RdmaPort.LinkLayer.ETHERNET, "ACTIVE", 0x0200aafffe000001L, List.of(), gids,
                new PkeyTable(List.of(0xffff)), up0, List.of());
        RdmaTopology rdma = new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED,
                List.of(new RdmaDevice("rxe0", 0x0200aafffe000001L, true, null, List.of(port))));
        HostState state = new HostState(b.snapshot(1), rdma, new ListenerTable(1, List.of()));
        PodRegistration reg = new PodRegistration(new PodKey("rdma-net", "c1", "net1"), "/run/netns/pod1", pod1.inode(),
                new PodRef("team-a", "trainer-0", "uid-0"), GidType.ROCE_V2,
                List.of(new Attachment("net1", 5, "rxe0", 1, Attachment.ETHERNET, List.of(), -1, -1)));
        queries = new Queries(() -> state, () -> new PodDirectory(List.of(reg)));
    }

    private static GidEntry gid(int index, String gid, GidType type, LinkRef ndev) {
        return new GidEntry(index, Gid.parse(gid), type, ndev, OptionalInt.empty());
    }

    private JsonNode ask(NetnsId caller) throws Exception {
        ConsumerInfo who = new ConsumerInfo(1, caller, Via.ABSTRACT_SOCKET, 4242, "", "cmdemux-env");
        return queries.answer(QueryKind.SELF, JSON.createObjectNode(), who);
    }

    @Test
    void aPodGetsItsOwnInterfaceWithTheIndexOfEachGidTypeAndItsPodName() throws Exception {
        JsonNode a = ask(pod1);

        assertThat(a.at("/netns/inode").asLong()).isEqualTo(pod1.inode());
        assertThat(a.get("pods")).extracting(JsonNode::asText).containsExactly("team-a/trainer-0");
        assertThat(a.get("interfaces")).hasSize(1);
        JsonNode i = a.get("interfaces").get(0);
        assertThat(i.get("ifname").asText()).isEqualTo("net1");
        assertThat(i.get("ifindex").asInt()).isEqualTo(5);
        assertThat(i.get("device").asText()).isEqualTo("rxe0");
        assertThat(i.get("port").asInt()).isEqualTo(1);
        assertThat(i.get("linkLayer").asText()).isEqualTo("ethernet");
        assertThat(i.at("/gidIndex/roce-v1").asInt()).isEqualTo(2);
        assertThat(i.at("/gidIndex/roce-v2").asInt()).isEqualTo(3);
        assertThat(i.at("/gidIndex").has("ib")).isFalse();
        assertThat(i.get("gids")).extracting(g -> g.get("index").asInt()).containsExactly(2, 3);
        assertThat(i.at("/gids/1/ip").asText()).isEqualTo("10.0.0.11");
        assertThat(i.get("warnings")).isEmpty();
    }

    @Test
    void anotherPodGetsItsOwnIndicesAndItsIpv4GidWinsOverALowerLinkLocalOne() throws Exception {
        JsonNode i = ask(pod2).get("interfaces").get(0);

        assertThat(i.get("ifname").asText()).isEqualTo("rdma0");
        assertThat(i.get("gids")).extracting(g -> g.get("index").asInt()).containsExactly(4, 5, 6, 7);
        assertThat(i.at("/gidIndex/roce-v1").asInt()).isEqualTo(6);
        assertThat(i.at("/gidIndex/roce-v2").asInt()).isEqualTo(7);
        assertThat(ask(pod2).get("pods")).isEmpty();
    }

    @Test
    void aPodWithOnlyAVethHasNoRdmaInterface() throws Exception {
        JsonNode a = ask(pod3);

        assertThat(a.at("/netns/inode").asLong()).isEqualTo(pod3.inode());
        assertThat(a.get("interfaces")).isEmpty();
    }

    @Test
    void aPodWhoseGidAnotherNamespaceHoldsLowerIsWarned() throws Exception {
        JsonNode i = ask(pod4).get("interfaces").get(0);

        assertThat(i.at("/gidIndex/roce-v2").asInt()).isEqualTo(9);
        assertThat(i.get("warnings")).hasSize(2);
        assertThat(i.at("/warnings").toString()).contains("index 3").contains("not index 9").contains("index 2");
    }

    @Test
    void theHostsOwnInterfaceIsThePortNetdevWithItsDefaultGids() throws Exception {
        JsonNode i = ask(host).get("interfaces").get(0);

        assertThat(i.get("ifname").asText()).isEqualTo("up0");
        assertThat(i.at("/gidIndex/roce-v2").asInt()).isEqualTo(1);
    }
}
