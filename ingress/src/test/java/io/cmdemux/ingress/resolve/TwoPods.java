package io.cmdemux.ingress.resolve;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.LinkInfo;

/**
 * The rule tests' host, encoded as the kernel dumps it: a RoCE port netdev up0 (10.0.0.1) in the
 * host, and a bridge-mode macvlan of it named net1 in each of pods A (10.0.0.11, fe80::a:11) and B
 * (10.0.0.12). Tests add what their rule needs to {@link #b} before taking the snapshot.
 */
final class TwoPods {
    static final String MAC_UP = "02:00:00:00:00:02";
    static final String MAC_A = "02:aa:00:00:00:0a";
    static final String MAC_B = "02:bb:00:00:00:0b";
    final DumpBuilder b = new DumpBuilder();
    final NetnsId host = b.host();
    final NetnsId a = b.pod("podA", 0);
    final NetnsId bb = b.pod("podB", 1);
    final LinkRef up0 = new LinkRef(host, 2);
    final LinkRef mvA = new LinkRef(a, 5);
    final LinkRef mvB = new LinkRef(bb, 6);

    TwoPods() {
        b.link(host, 1, "lo").arphrd(772).add();
        b.link(host, 2, "up0").mac(MAC_UP).add().addr(host, 2, "10.0.0.1/24");
        b.link(a, 1, "lo").arphrd(772).add();
        b.link(a, 5, "net1")
                .macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE)
                .mac(MAC_A)
                .add()
                .addr(a, 5, "10.0.0.11/24")
                .addr(a, 5, "fe80::a:11/64");
        b.link(bb, 1, "lo").arphrd(772).add();
        b.link(bb, 6, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).mac(MAC_B).add().addr(bb, 6, "10.0.0.12/24");
    }
}
