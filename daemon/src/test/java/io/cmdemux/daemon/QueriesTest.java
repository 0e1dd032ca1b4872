package io.cmdemux.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.PkeyTable;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.LinkInfo;
import io.cmdemux.pods.Attachment;
import io.cmdemux.pods.PodDirectory;
import io.cmdemux.pods.PodKey;
import io.cmdemux.pods.PodRef;
import io.cmdemux.pods.PodRegistration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The daemon's answers to QUERY, on a host made as the kernel dumps it: up0 (10.0.0.1) with a soft RoCE
 * port, and a macvlan of it in pod1 (10.0.0.11) whose GID is in the port's table. explain takes the same
 * request as `cmdemux explain`, and everything in its arguments is a caller's and may be wrong.
 */
class QueriesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ConsumerInfo HOST_CALLER = null;

    private final DumpBuilder b = new DumpBuilder();
    private final NetnsId host = b.host();
    private final NetnsId pod = b.pod("pod1", 0);
    private final Queries queries;

    QueriesTest() {
        b.link(host, 1, "lo").arphrd(772).add();
        b.link(host, 2, "up0").mac("02:00:00:00:00:02").add().addr(host, 2, "10.0.0.1/24");
        b.link(pod, 1, "lo").arphrd(772).add();
        b.link(pod, 5, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).mac("02:aa:00:00:00:0a").add()
                .addr(pod, 5, "10.0.0.11/24");
        LinkRef up0 = new LinkRef(host, 2);
        RdmaPort port = new RdmaPort(1, RdmaPort.LinkLayer.ETHERNET, "ACTIVE", 0x0200aafffe000001L, List.of(),
                List.of(gid(0, "fe80::200:ff:fe00:2", up0), gid(1, "::ffff:10.0.0.1", up0),
                        gid(2, "::ffff:10.0.0.11", new LinkRef(pod, 5))),
                new PkeyTable(List.of(0xffff)), up0, List.of());
        RdmaTopology rdma = new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED,
                List.of(new RdmaDevice("rxe0", 0x0200aafffe000001L, true, null, List.of(port))));
        ListenerTable listeners = new ListenerTable(1, List.of(
                new Listener(pod, PortSpace.TCP, 7471, InetAddresses.parse("0.0.0.0"), false, 0, 1, null, "test")));
        HostState state = new HostState(b.snapshot(1), rdma, listeners);
        PodDirectory pods = new PodDirectory(List.of(registration("default", "rdma-0"),
                registration("team", "rdma-1")));
        queries = new Queries(() -> state, () -> pods);
    }

    private static GidEntry gid(int index, String gid, LinkRef ndev) {
        return new GidEntry(index, Gid.parse(gid), GidType.ROCE_V2, ndev, OptionalInt.empty());
    }

    private PodRegistration registration(String namespace, String name) {
        return new PodRegistration(new PodKey("rdma", name + "-container", "net1"), "/run/netns/pod1", pod.inode(),
                new PodRef(namespace, name, name + "-uid"), GidType.ROCE_V2,
                List.of(new Attachment("net1", 5, "rxe0", 1, Attachment.ETHERNET, List.of(), -1, -1)));
    }

    private JsonNode ask(QueryKind kind, String args) throws Exception {
        return queries.answer(kind, (ObjectNode) JSON.readTree(args), HOST_CALLER);
    }

    private String refusal(QueryKind kind, String args) throws Exception {
        RequestRefused r = catchThrowableOfType(() -> ask(kind, args), RequestRefused.class);
        assertThat(r).as(args).isNotNull();
        assertThat(r.status()).as(args).isEqualTo(22);
        return r.getMessage();
    }

    @Test
    void explainDeliversToThePodWhoseGidTheRequestNames() throws Exception {
        JsonNode d = ask(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"src\": \"10.0.0.2:40000\"}");
        assertThat(d.path("outcome").asText()).isEqualTo("deliver");
        assertThat(d.path("namespace").path("inode").asLong()).isEqualTo(pod.inode());
        assertThat(d.path("netdev").path("name").asText()).isEqualTo("net1");
        assertThat(d.has("netstack")).as("both modes answer").isTrue();

        // The host's own address is on up0, where nobody listens: ib_cm finds no listener in init.
        assertThat(ask(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.1:7471\"}").path("rejectReason").asInt()).isEqualTo(28);
        // Another port space: the pod listens only in RDMA_PS_TCP, so ib_cm has no listener for the service ID.
        assertThat(ask(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"ps\": \"ib\"}").path("rejectReason").asInt())
                .isEqualTo(8);
    }

    @Test
    void badExplainArgumentsAreEinvalWithTheReason() throws Exception {
        assertThat(refusal(QueryKind.EXPLAIN, "{}")).contains("needs \"dst\"");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11\"}")).contains("expected IP:PORT");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"dstt\": 1}"))
                .contains("no argument \"dstt\"");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": 7471}")).contains("\"dst\" must be a string");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"port\": 1.5}")).contains("whole number");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"vlan\": 4096}"))
                .contains("from 0 to 4095");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"device\": \"mlx5_0\"}"))
                .contains("no RDMA device mlx5_0");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"src\": \"[::1]:1\"}"))
                .contains("same IP family");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"qp_type\": \"QQ\"}"))
                .contains("unknown QP type");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"af_ib\": \"yes\"}"))
                .contains("true or false");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"guid\": \"zz\"}"))
                .contains("not a GUID");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"pkey\": \"0x10000\"}"))
                .contains("from 0 to 0xffff");
        assertThat(refusal(QueryKind.EXPLAIN, "{\"dst\": \"10.0.0.11:7471\", \"pkey\": \"full\"}"))
                .contains("must be a number");
    }

    @Test
    void podsAreFilteredByNamespaceAndName() throws Exception {
        assertThat(ask(QueryKind.PODS, "{}")).hasSize(2);
        assertThat(ask(QueryKind.PODS, "{\"namespace\": \"team\"}")).hasSize(1);
        assertThat(ask(QueryKind.PODS, "{\"namespace\": \"team\", \"name\": \"rdma-0\"}")).isEmpty();
        assertThat(ask(QueryKind.PODS, "{\"name\": \"rdma-0\"}").get(0).toString()).contains("default");
    }

    @Test
    void topologyAndGidsNameThePods() throws Exception {
        JsonNode podNs = null;
        for (JsonNode ns : ask(QueryKind.TOPOLOGY, "{}").path("namespaces")) {
            if (ns.path("inode").asLong() == pod.inode()) {
                podNs = ns;
            }
        }
        assertThat(podNs).as("pod1 in the topology").isNotNull();
        assertThat(podNs.path("links").findValuesAsText("name")).contains("net1");
        assertThat(podNs.path("pods").findValuesAsText("name")).containsExactlyInAnyOrder("rdma-0", "rdma-1");
        assertThat(ask(QueryKind.GIDS, "{\"device\": \"rxe0\"}").toString()).contains("::ffff:10.0.0.11");
    }
}
