package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A macvlan in a pod namespace whose parent lives in another namespace, with the pod-side
 * ifindex equal to the parent's, on the real kernel against {@code ip -d -j link show}. Needs
 * root and iproute2, and fails without them.
 *
 * <p>The equal indexes are the point: the kernel then sends IFLA_LINK equal to the link's own
 * ifindex (forced by IFLA_LINK_NETNSID, rtnl_fill_link_netnsid), which must not be mistaken for
 * "no parent". In real pods this is common: net1 is ifindex 2 or 3, and so is the host's uplink.
 */
class CrossNamespaceParentVsIproute2AsRootTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static String host;
    private static String pod;
    private static int parentIfindex;
    private static final Map<String, Link> ours = new HashMap<>();

    @BeforeAll
    static void buildHostAndPod() throws Exception {
        Iproute2.requireRootAndIproute2();
        String id = Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
        host = "cmdx-nt-" + id + "-h";
        Iproute2.run("ip", "netns", "add", host);
        pod = "cmdx-nt-" + id + "-p";
        Iproute2.run("ip", "netns", "add", pod);
        Iproute2.ip(host, "link", "add", "h0", "type", "veth", "peer", "name", "h1");
        Iproute2.ip(host, "link", "set", "h0", "up");
        parentIfindex = JSON.readTree(Iproute2.ip(host, "-j", "link", "show", "h0")).get(0).get("ifindex").asInt();
        // Created from the host side straight into the pod, with the parent's own ifindex there.
        Iproute2.ip(host, "link", "add", "link", "h0", "name", "net1", "netns", pod, "index",
                Integer.toString(parentIfindex), "type", "macvlan", "mode", "bridge");
        Iproute2.ip(
                host, "link", "add", "link", "h0", "name", "net2", "netns", pod, "type", "macvlan", "mode", "private");
        for (Iproute2.Raw raw : Iproute2.rawDump(pod, "link")) {
            NlMessage m = NlMessage.of(raw.bytes());
            if (m.type() == Rtnl.RTM_NEWLINK) {
                Link l = Rtnl.decodeLink(m);
                ours.put(l.name(), l);
            }
        }
    }

    @AfterAll
    static void deleteNamespaces() throws Exception {
        if (host != null) {
            Iproute2.run("ip", "netns", "del", host); // takes h0 and with it the macvlans on it
        }
        if (pod != null) {
            Iproute2.run("ip", "netns", "del", pod);
        }
    }

    @Test
    void macvlanWhoseParentInAnotherNamespaceHasTheSameIfindexKeepsThatParent() throws Exception {
        JsonNode theirs = JSON.readTree(Iproute2.ip(pod, "-d", "-j", "link", "show", "net1")).get(0);
        assertThat(theirs.get("ifindex").asInt())
                .as("the setup gave net1 its parent's ifindex")
                .isEqualTo(parentIfindex);
        Link net1 = ours.get("net1");
        assertThat(net1.ifindex()).isEqualTo(theirs.get("ifindex").asInt());
        assertThat(net1.parentIfindex())
                .as("parent ifindex (ip: link_index)")
                .isEqualTo(theirs.get("link_index").asInt());
        assertThat(net1.hasParent()).isTrue();
        assertThat(net1.parentNsid())
                .as("parent nsid (ip: link_netnsid)")
                .isEqualTo(OptionalInt.of(theirs.get("link_netnsid").asInt()));
    }

    @Test
    void everyPodLinkParentAndKindMatchIproute2() throws Exception {
        JsonNode all = JSON.readTree(Iproute2.ip(pod, "-d", "-j", "link", "show"));
        assertThat(ours.keySet()).containsExactlyInAnyOrder("lo", "net1", "net2");
        for (JsonNode l : all) {
            Link mine = ours.get(l.get("ifname").asText());
            assertThat(mine).as(l.get("ifname").asText()).isNotNull();
            assertThat(mine.ifindex()).isEqualTo(l.get("ifindex").asInt());
            assertThat(mine.parentIfindex()).as(mine.name() + " parent").isEqualTo(l.path("link_index").asInt(0));
            assertThat(mine.parentNsid())
                    .as(mine.name() + " parent nsid")
                    .isEqualTo(
                            l.has("link_netnsid")
                                    ? OptionalInt.of(l.get("link_netnsid").asInt())
                                    : OptionalInt.empty());
            JsonNode info = l.path("linkinfo");
            if (info.has("info_kind")) {
                assertThat(mine.kind()).isEqualTo(info.get("info_kind").asText());
                assertThat(((LinkInfo.Macvlan) mine.info()).modeName())
                        .isEqualTo(info.get("info_data").get("mode").asText());
            } else {
                assertThat(mine.kind()).isEqualTo("loopback");
            }
        }
    }
}
