package io.cmdemux.service;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.gid.Gid;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.IngressKey;
import io.cmdemux.ingress.resolve.NetworkType;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.netdev.HwAddr;
import java.net.Inet4Address;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "explain", mixinStandardHelpOptions = true,
        description = {"Which namespace and listener get this connection request, and why: the decision and its trace,",
                "in the kernel's terms and the netstack's. Exit 0 for deliver, 1 for reject or drop."})
final class ExplainCommand implements Callable<Integer> {
    @Option(names = "--device", paramLabel = "D", description = "RDMA device the REQ arrives on (default: the only one)")
    String device;

    @Option(names = "--port", paramLabel = "P", description = "port number (default 1)")
    int port = 1;

    @Option(names = "--pkey", paramLabel = "K", description = "the REQ's P_Key (default 0xffff)")
    String pkey = "0xffff";

    @Option(names = "--guid", paramLabel = "G", description = "IB: the port or alias GUID the REQ names (our GID = fe80:: + GUID)")
    String guid;

    @Option(names = "--dgid", paramLabel = "G", description = "the packet's destination GID (default: the destination IP as a GID)")
    String dgid;

    @Option(names = "--dst", paramLabel = "IP:PORT", required = true, description = "our address and the listener port (rdma_cm header + service ID)")
    String dst;

    @Option(names = "--src", paramLabel = "IP:PORT", required = true, description = "the requester's address and port")
    String src;

    @Option(names = "--ps", paramLabel = "tcp|udp|ib|ipoib", description = "port space (default tcp)")
    String ps = "tcp";

    @Option(names = "--vlan", paramLabel = "V", description = "the frame's 802.1Q VID")
    Integer vlan;

    @Option(names = "--dmac", paramLabel = "M", description = "the frame's destination MAC (netstack mode)")
    String dmac;

    @Option(names = "--af-ib", description = "a native IB request (no rdma_cm IP header)")
    boolean afIb;

    @Option(names = "--qp-type", paramLabel = "RC|UC|UD|XRC_TGT",
            description = "the requester's QP type; UD sends a SIDR REQ (default: UD for udp and ipoib, RC otherwise, as librdmacm's ids)")
    String qpType;

    @Mixin
    ResolveOptions opts = new ResolveOptions();

    @Override
    public Integer call() throws Exception {
        HostState state = opts.load();
        PacketMeta meta = meta(state);
        List<Decision> ds = new ArrayList<>();
        for (ResolverMode m : opts.modes()) {
            ds.add(Resolver.resolve(state, meta, m));
        }
        print(state, meta, ds);
        return ds.get(0).outcome() == Decision.Outcome.DELIVER ? Main.EXIT_OK : Main.EXIT_NO;
    }

    private void print(HostState state, PacketMeta meta, List<Decision> ds) throws Exception {
        var topo = state.topology();
        Format f = opts.format();
        if (f.picture()) {
            System.out.print(Pictures.render(DecisionPictures.graph(topo, state.rdma(), meta, ds.get(0), ds.size() == 2 ? ds.get(1) : null), f));
            return;
        }
        if (f == Format.JSON) {
            ObjectNode o = ds.size() == 2 ? DecisionView.bothJson(topo, ds.get(0), ds.get(1)) : DecisionView.json(topo, ds.get(0));
            System.out.println(TopologyView.JSON.writeValueAsString(o));
            return;
        }
        for (Decision d : ds) {
            System.out.print(DecisionView.text(topo, d));
        }
        if (ds.size() == 2) {
            String hint = DecisionView.disagreementHint(topo, ds.get(0), ds.get(1));
            System.out.println(hint == null ? "kernel and netstack agree." : "kernel and netstack DISAGREE: " + hint);
        }
    }

    PacketMeta meta(HostState state) {
        RdmaDevice dev = pickDevice(state);
        RdmaPort p = dev.port(port).orElseThrow(() -> new IllegalArgumentException(dev.name() + " has no port " + port));
        Endpoint d = Endpoint.parse("--dst", dst);
        Endpoint s = Endpoint.parse("--src", src);
        if ((d.ip() instanceof Inet4Address) != (s.ip() instanceof Inet4Address)) {
            throw new IllegalArgumentException("--dst and --src must be the same IP family");
        }
        int k = Integer.decode(pkey);
        Gid packetDgid = dgid != null ? Gid.parse(dgid) : Gid.ofIp(d.ip());
        Gid ours = guid != null ? new Gid(0xfe80000000000000L, Long.parseUnsignedLong(guid.replace("0x", "").replace(":", ""), 16)) : packetDgid;
        NetworkType type = p.roce() ? NetworkType.ROCE_V2 : NetworkType.IB;
        PortSpace space = PortSpace.parse(ps);
        int ipVersion = afIb ? 0 : d.ip() instanceof Inet4Address ? 4 : 6;
        QpType qp = qpType == null ? QpType.defaultFor(space) : QpType.parse(qpType);
        boolean sidr = qp == QpType.UD;
        return new PacketMeta(new IngressKey(dev.name(), port, ours.lo(), k), type, packetDgid, ours, Gid.ofIp(s.ip()), k, k,
                space.serviceId(d.port()), 0, ipVersion, afIb ? null : d.ip(), afIb ? null : s.ip(), s.port(),
                vlan == null ? OptionalInt.empty() : OptionalInt.of(vlan), dmac == null ? null : HwAddr.parse(dmac), sidr, 0, sidr ? null : qp, Gid.ofIp(s.ip()));
    }

    private RdmaDevice pickDevice(HostState state) {
        List<RdmaDevice> all = state.rdma().devices();
        if (device != null) {
            return state.rdma().device(device).orElseThrow(() -> new IllegalArgumentException("no RDMA device " + device
                    + " (there are: " + String.join(", ", all.stream().map(RdmaDevice::name).toList()) + "; define a soft port with --rdma-port NAME=NETDEV)"));
        }
        if (all.size() == 1) {
            return all.get(0);
        }
        throw new IllegalArgumentException(all.isEmpty() ? "no RDMA device on this host: define a soft port with --rdma-port NAME=NETDEV"
                : "several RDMA devices; name one with --device (" + String.join(", ", all.stream().map(RdmaDevice::name).toList()) + ")");
    }
}
