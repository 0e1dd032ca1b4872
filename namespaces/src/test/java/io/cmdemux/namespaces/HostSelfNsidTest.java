package io.cmdemux.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.LinkInfo;
import org.junit.jupiter.api.Test;

/**
 * A host that has an nsid for itself (seen on a shared test machine: `ip netns list-id` shows an
 * unnamed nsid, and a pod's table gives the host that nsid as NETNSA_CURRENT_NSID instead of -1):
 * a pod's macvlan must still hang from its parent in the host.
 */
class HostSelfNsidTest {
    private static TopologySnapshot podWithMacvlan(DumpBuilder b) {
        b.link(b.host(), 2, "up").add();
        NetnsId pod = b.pod("pod1", 1);
        b.link(pod, 2, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).add();
        return b.snapshot(1);
    }

    @Test
    void aPodsParentInTheHostIsFoundWhenTheHostHasNoNsidForItself() {
        DumpBuilder b = new DumpBuilder();
        TopologySnapshot s = podWithMacvlan(b);
        NetnsId pod = s.findNamespace("pod1").orElseThrow().id();
        assertThat(s.parentOf(new LinkRef(pod, 2))).contains(new LinkRef(b.host(), 2));
    }

    @Test
    void aPodsParentInTheHostIsFoundWhenTheHostHasAnNsidForItself() {
        DumpBuilder b = new DumpBuilder().hostSelfNsid(10);
        TopologySnapshot s = podWithMacvlan(b);
        NetnsId pod = s.findNamespace("pod1").orElseThrow().id();
        assertThat(s.parentOf(new LinkRef(pod, 2))).contains(new LinkRef(b.host(), 2));
        assertThat(s.uppersOf(new LinkRef(b.host(), 2))).containsExactly(new LinkRef(pod, 2));
    }
}
