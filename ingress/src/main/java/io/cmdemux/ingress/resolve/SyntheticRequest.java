package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.netdev.HwAddr;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.OptionalInt;

/**
 * A connection request described by what a person knows about it (addresses, port space, QP type) instead of
 * its bytes: the question {@code explain} asks, from the command line or the daemon's control socket. It
 * fills in the rest as librdmacm and the kernel would: the GID the REQ names is the destination IP as a GID
 * (RoCE) or fe80::GUID (IB), the P_Key is the default one, the QP type is the one rdma_create_id gives the port
 * space, and a UD requester sends a SIDR REQ.
 */
public final class SyntheticRequest {
    private final InetSocketAddress dst;
    private final InetSocketAddress src;
    private String device;
    private int port = 1;
    private int pkey = 0xffff;
    private Long guid;
    private Gid dgid;
    private PortSpace space = PortSpace.TCP;
    private QpType qpType;
    private boolean afIb;
    private OptionalInt vlan = OptionalInt.empty();
    private HwAddr dmac;

    private SyntheticRequest(InetSocketAddress dst, InetSocketAddress src) {
        if ((dst.getAddress() instanceof Inet4Address) != (src.getAddress() instanceof Inet4Address)) {
            throw new IllegalArgumentException("the destination and the source must be the same IP family");
        }
        this.dst = dst;
        this.src = src;
    }

    /** A request from {@code src} for the listener at {@code dst}. */
    public static SyntheticRequest to(InetSocketAddress dst, InetSocketAddress src) {
        return new SyntheticRequest(dst, src);
    }

    /** The RDMA device it arrives on; by default the host's only one. */
    public SyntheticRequest device(String name) {
        this.device = name;
        return this;
    }

    public SyntheticRequest port(int n) {
        this.port = n;
        return this;
    }

    public SyntheticRequest pkey(int k) {
        this.pkey = k;
        return this;
    }

    /** IB: the port or alias GUID the REQ names; our GID is then fe80:: + GUID (a SIDR REQ names none). */
    public SyntheticRequest guid(long g) {
        this.guid = g;
        return this;
    }

    /** The packet's destination GID, when it is not the destination IP as a GID. */
    public SyntheticRequest dgid(Gid g) {
        this.dgid = g;
        return this;
    }

    public SyntheticRequest portSpace(PortSpace ps) {
        this.space = ps;
        return this;
    }

    /** The requester's QP type; by default the one rdma_create_id gives the port space. */
    public SyntheticRequest qpType(QpType qp) {
        this.qpType = qp;
        return this;
    }

    /** A native IB request: AF_IB, so no rdma_cm IP header in the private data. */
    public SyntheticRequest afIb(boolean on) {
        this.afIb = on;
        return this;
    }

    public SyntheticRequest vlan(int vid) {
        this.vlan = OptionalInt.of(vid);
        return this;
    }

    /** The frame's destination MAC, which only the netstack mode reads. */
    public SyntheticRequest dmac(HwAddr mac) {
        this.dmac = mac;
        return this;
    }

    /** The metadata of this request arriving on {@code rdma}; a device or port that does not exist is an error. */
    public PacketMeta meta(RdmaTopology rdma) {
        RdmaDevice dev = pickDevice(rdma);
        RdmaPort p = dev.port(port)
                .orElseThrow(() -> new IllegalArgumentException(dev.name() + " has no port " + port));
        Gid peer = Gid.ofIp(src.getAddress());
        Gid packetDgid = dgid != null ? dgid : Gid.ofIp(dst.getAddress());
        Gid ours = guid != null ? new Gid(0xfe80000000000000L, guid) : packetDgid;
        NetworkType type = p.roce() ? NetworkType.ROCE_V2 : NetworkType.IB;
        int ipVersion = afIb ? 0 : dst.getAddress() instanceof Inet4Address ? 4 : 6;
        QpType qp = qpType == null ? QpType.defaultFor(space) : qpType;
        boolean sidr = qp == QpType.UD;
        // A SIDR REQ carries no path, so no GID of ours: the packet's destination is all there is
        // (as in PacketMetas).
        Gid named = sidr ? null : ours;
        Gid keyGid = sidr ? packetDgid : ours;
        InetAddress dstIp = afIb ? null : dst.getAddress();
        InetAddress srcIp = afIb ? null : src.getAddress();
        return new PacketMeta(new IngressKey(dev.name(), port, keyGid.lo(), pkey), type, packetDgid, named, peer,
                pkey, pkey, space.serviceId(dst.getPort()), 0, ipVersion, dstIp, srcIp, src.getPort(), vlan, dmac,
                sidr, 0, sidr ? null : qp, peer);
    }

    private RdmaDevice pickDevice(RdmaTopology rdma) {
        List<RdmaDevice> all = rdma.devices();
        String names = String.join(", ", all.stream().map(RdmaDevice::name).toList());
        if (device != null) {
            return rdma.device(device).orElseThrow(() -> new IllegalArgumentException("no RDMA device " + device
                    + (all.isEmpty() ? " (there is none)" : " (there are: " + names + ")")));
        }
        if (all.size() == 1) {
            return all.get(0);
        }
        throw new IllegalArgumentException(all.isEmpty() ? "no RDMA device on this host"
                : "several RDMA devices; name one (" + names + ")");
    }
}
