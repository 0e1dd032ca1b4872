package io.cmdemux.render.picture;

import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.SoftPortSpec;
import io.cmdemux.gid.SoftRocePort;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.LinkInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * A host built as the kernel's own dump messages (the namespaces testkit's DumpBuilder): an
 * uplink "up" carrying a soft RoCE port rxe0, a bond with an active and a backup slave, and
 * pods each with a macvlan "net1" of the uplink holding 10.80.x.y. What the tests expect is
 * read from here, never from the picture.
 */
final class Pods {
    static final int UP = 2;
    static final int BOND = 10;
    static final int BOND_ACTIVE = 11;
    static final int BOND_BACKUP = 12;
    static final int NET1 = 2;

    final DumpBuilder b = new DumpBuilder();
    final List<NetnsId> pods = new ArrayList<>();
    final List<String> names = new ArrayList<>();

    Pods(List<String> podNames) {
        NetnsId host = b.host();
        b.link(host, 1, "lo").add();
        b.link(host, UP, "up").add();
        b.link(host, BOND, "bond0").bond(1, BOND_ACTIVE).add();
        b.link(host, BOND_ACTIVE, "eth1").bondSlave(BOND, true).add();
        b.link(host, BOND_BACKUP, "eth2").bondSlave(BOND, false).add();
        for (int i = 0; i < podNames.size(); i++) {
            NetnsId p = b.pod(podNames.get(i), i + 1);
            b.link(p, 1, "lo").add();
            b.link(p, NET1, "net1").macvlan(UP, 0, LinkInfo.Macvlan.MODE_BRIDGE).add();
            b.addr(p, NET1, ip(i) + "/16");
            pods.add(p);
            names.add(podNames.get(i));
        }
    }

    static Pods named(int n) {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            names.add("pod" + i);
        }
        return new Pods(names);
    }

    /** Pod i's address (from 0). */
    static String ip(int i) {
        return "10.80." + (i / 250) + "." + (i % 250 + 1);
    }

    LinkRef net1(int i) {
        return new LinkRef(pods.get(i), NET1);
    }

    LinkRef up() {
        return new LinkRef(b.host(), UP);
    }

    TopologySnapshot topology() {
        return b.snapshot(7);
    }

    static RdmaTopology rdma(TopologySnapshot topo) {
        RdmaDevice rxe0 = SoftRocePort.compute(SoftPortSpec.parse("rxe0=up"), topo);
        return new RdmaTopology(3, RdmaTopology.NetnsMode.SHARED, List.of(rxe0));
    }
}
