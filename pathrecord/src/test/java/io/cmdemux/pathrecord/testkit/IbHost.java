package io.cmdemux.pathrecord.testkit;

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
import java.util.List;
import java.util.OptionalInt;

/**
 * A host with one IB port, mlx5_0/1 (GID fe80::2:c903:0:1, P_Keys 0xffff, 0x8001, 0x8002, 0x8003),
 * IPoIB parent ib0 in the host namespace and one RTNL child per pod: ib0.8001 in podA, ib0.8002 in
 * podB, ib0.8003 in podC (ARCHITECTURE.md §4.3: children share the parent's GID and differ by P_Key).
 */
public final class IbHost {
    public static final String DEV = "mlx5_0";
    public static final String PORT_GID_TEXT = "fe80::2:c903:0:1";
    public static final Gid PORT_GID = Gid.parse(PORT_GID_TEXT);
    public static final long PORT_GUID = 0x0002c90300000001L;

    public final DumpBuilder b = new DumpBuilder();
    public final NetnsId host = b.host();
    public final NetnsId podA = b.pod("podA", 0);
    public final NetnsId podB = b.pod("podB", 1);
    public final NetnsId podC = b.pod("podC", 2);
    public final LinkRef ib0 = new LinkRef(host, 3);

    public IbHost() {
        b.link(host, 1, "lo").arphrd(772).add();
        b.link(host, 3, "ib0").ipoib(0xffff, PORT_GID_TEXT, 0x48).add().addr(host, 3, "192.168.0.1/24");
        b.link(podA, 10, "ib0.8001")
                .ipoib(0x8001, PORT_GID_TEXT, 0x49)
                .parent(3, 0)
                .add()
                .addr(podA, 10, "192.168.1.11/24");
        b.link(podB, 11, "ib0.8002")
                .ipoib(0x8002, PORT_GID_TEXT, 0x4a)
                .parent(3, 0)
                .add()
                .addr(podB, 11, "192.168.2.12/24");
        b.link(podC, 12, "ib0.8003")
                .ipoib(0x8003, PORT_GID_TEXT, 0x4b)
                .parent(3, 0)
                .add()
                .addr(podC, 12, "192.168.3.13/24");
    }

    public RdmaTopology rdma() {
        RdmaPort p = new RdmaPort(1, RdmaPort.LinkLayer.INFINIBAND, "ACTIVE", PORT_GUID, List.of(),
                List.of(new GidEntry(0, PORT_GID, GidType.IB, null, OptionalInt.empty())),
                new PkeyTable(List.of(0xffff, 0x8001, 0x8002, 0x8003)), null, List.of(ib0));
        return new RdmaTopology(
                1, RdmaTopology.NetnsMode.SHARED, List.of(new RdmaDevice(DEV, PORT_GUID, false, host, List.of(p))));
    }

    public HostState state(long generation) {
        return new HostState(b.snapshot(generation), rdma(), ListenerTable.empty());
    }
}
