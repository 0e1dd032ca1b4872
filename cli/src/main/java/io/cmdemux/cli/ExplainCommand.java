package io.cmdemux.cli;

import io.cmdemux.render.DecisionPictures;
import io.cmdemux.render.DecisionView;
import io.cmdemux.render.Format;
import io.cmdemux.render.Pictures;
import io.cmdemux.render.TopologyView;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.resolve.SyntheticRequest;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.render.picture.Graph;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "explain", mixinStandardHelpOptions = true,
        description = {"Which namespace and listener get this connection request, and why: the decision and its trace,",
                "in the kernel's terms and the netstack's. Exit 0 for deliver, 1 for reject or drop."})
final class ExplainCommand implements Callable<Integer> {
    @Mixin
    Terminal terminal = new Terminal();

    @Option(names = "--device", paramLabel = "D",
            description = "RDMA device the REQ arrives on (default: the only one)")
    String device;

    @Option(names = "--port", paramLabel = "P", description = "port number (default 1)")
    int port = 1;

    @Option(names = "--pkey", paramLabel = "K", description = "the REQ's P_Key (default 0xffff)")
    String pkey = "0xffff";

    @Option(names = "--guid", paramLabel = "G",
            description = "IB: the port or alias GUID the REQ names (our GID = fe80:: + GUID)")
    String guid;

    @Option(names = "--dgid", paramLabel = "G",
            description = "the packet's destination GID (default: the destination IP as a GID)")
    String dgid;

    @Option(names = "--dst", paramLabel = "IP:PORT", required = true,
            description = "our address and the listener port (rdma_cm header + service ID)")
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
            description = "the requester's QP type; UD sends a SIDR REQ (default: UD for udp and ipoib, RC otherwise,"
                    + " as librdmacm's ids)")
    String qpType;

    @Mixin
    ResolveOptions opts = new ResolveOptions();

    @Override
    public Integer call() throws Exception {
        HostState state = opts.load(terminal.err());
        PacketMeta meta = meta(state);
        List<Decision> ds = new ArrayList<>();
        for (ResolverMode m : opts.modes()) {
            ds.add(Resolver.resolve(state, meta, m));
        }
        print(state, meta, ds);
        return ds.get(0).outcome() == Decision.Outcome.DELIVER ? ExitCode.OK : ExitCode.NO;
    }

    private void print(HostState state, PacketMeta meta, List<Decision> ds) throws Exception {
        var topo = state.topology();
        Format f = opts.format();
        if (f.picture()) {
            Decision second = ds.size() == 2 ? ds.get(1) : null;
            Graph graph = DecisionPictures.graph(topo, state.rdma(), meta, ds.get(0), second);
            terminal.out().print(Pictures.render(graph, f));
            return;
        }
        if (f == Format.JSON) {
            ObjectNode o = ds.size() == 2 ? DecisionView.bothJson(topo, ds.get(0), ds.get(1))
                    : DecisionView.json(topo, ds.get(0));
            terminal.out().println(TopologyView.JSON.writeValueAsString(o));
            return;
        }
        for (Decision d : ds) {
            terminal.out().print(DecisionView.text(topo, d));
        }
        if (ds.size() == 2) {
            String hint = DecisionView.disagreementHint(topo, ds.get(0), ds.get(1));
            terminal.out().println(hint == null ? "kernel and netstack agree."
                    : "kernel and netstack DISAGREE: " + hint);
        }
    }

    PacketMeta meta(HostState state) {
        InetSocketAddress d = InetAddresses.parseEndpoint("--dst", dst);
        SyntheticRequest r = SyntheticRequest.to(d, InetAddresses.parseEndpoint("--src", src)).port(port)
                .pkey(Integer.decode(pkey))
                .portSpace(PortSpace.parse(ps)).afIb(afIb);
        if (device != null) {
            r.device(device);
        }
        if (guid != null) {
            r.guid(Gid.parseGuid(guid));
        }
        if (dgid != null) {
            r.dgid(Gid.parse(dgid));
        }
        if (qpType != null) {
            r.qpType(QpType.parse(qpType));
        }
        if (vlan != null) {
            r.vlan(vlan);
        }
        if (dmac != null) {
            r.dmac(HwAddr.parse(dmac));
        }
        try {
            return r.meta(state.rdma());
        } catch (IllegalArgumentException e) {
            if (state.rdma().devices().isEmpty()) {
                throw new IllegalArgumentException(e.getMessage()
                        + ": define a soft port with --rdma-port NAME=NETDEV", e);
            }
            if (device == null && state.rdma().devices().size() > 1) {
                throw new IllegalArgumentException(e.getMessage() + " with --device", e);
            }
            throw e;
        }
    }
}
