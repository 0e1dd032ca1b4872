package io.cmdemux.ingress.resolve;

import io.cmdemux.ingress.wire.PortSpace;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.PkeyTable;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import java.net.InetAddress;
import java.util.List;
import java.util.OptionalInt;

/** Small helpers that keep the rule tests readable. */
final class Fixtures {
    static final String DEV = "rxe0";
    static final int TCP_PORT = 7471;

    private Fixtures() {}

    static GidEntry gid(int index, String ip, LinkRef ndev) {
        return new GidEntry(index, Gid.parse(ip), GidType.ROCE_V2, ndev, OptionalInt.empty());
    }

    static GidEntry vlanGid(int index, String ip, LinkRef ndev, int vid) {
        return new GidEntry(index, Gid.parse(ip), GidType.ROCE_V2, ndev, OptionalInt.of(vid));
    }

    static RdmaTopology roce(LinkRef portNetdev, List<GidEntry> gids) {
        RdmaPort port = new RdmaPort(1, RdmaPort.LinkLayer.ETHERNET, "ACTIVE", 0x0200aafffe000001L, List.of(), gids,
                new PkeyTable(List.of(0xffff)), portNetdev, List.of());
        return new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED,
                List.of(new RdmaDevice(DEV, 0x0200aafffe000001L, true, null, List.of(port))));
    }

    static Listener listener(NetnsId ns, String ip, int port, long order) {
        return new Listener(ns, PortSpace.TCP, port, InetAddresses.parse(ip), false, 0, order, null, "test");
    }

    static ListenerTable listeners(Listener... ls) {
        return new ListenerTable(1, List.of(ls));
    }

    /** A RoCE v2 REQ to dst:TCP_PORT from src, with the frame's outer destination equal to dst. */
    static PacketMeta req(String dst, String src) {
        return req(DEV, dst, src, OptionalInt.empty(), null);
    }

    static PacketMeta req(String device, String dst, String src, OptionalInt vlan, String dmac) {
        InetAddress d = InetAddresses.parse(dst);
        InetAddress s = InetAddresses.parse(src);
        int ipv = d instanceof java.net.Inet4Address ? 4 : 6;
        return new PacketMeta(new IngressKey(device, 1, 0, 0xffff), NetworkType.ROCE_V2, Gid.ofIp(d), Gid.ofIp(d),
                Gid.ofIp(s), 0xffff, 0xffff, PortSpace.TCP.serviceId(TCP_PORT), 0, ipv, d, s, 40000, vlan,
                dmac == null ? null : HwAddr.parse(dmac), false, 0x1234, QpType.RC, Gid.ofIp(s));
    }
}
