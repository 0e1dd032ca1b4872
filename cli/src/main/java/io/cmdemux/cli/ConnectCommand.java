package io.cmdemux.cli;

import io.cmdemux.render.TopologyView;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.netdev.InetAddresses;
import java.net.InetSocketAddress;
import io.cmdemux.cli.active.ActiveSide;
import io.cmdemux.cli.active.NextHop;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "connect", mixinStandardHelpOptions = true,
        description = {"The active side of an RDMA CM connection over RoCEv2, from the namespace it runs in"
                + " (ip netns exec NS ...):",
                "sends a REQ with an rdma_cm header and a fresh comm ID, and reports what answers:"
                + " REJ with its reason,",
                "MRA (the listener took the request), REP, or nothing. Exit 0 on MRA or REP, 1 on REJ or timeout."})
final class ConnectCommand implements Callable<Integer> {
    @Mixin
    Terminal terminal = new Terminal();

    @Option(names = "--dst", paramLabel = "IP:PORT", required = true, description = "the listener's address and port")
    String dst;

    @Option(names = "--src", paramLabel = "IP:PORT",
            description = "our port in the rdma_cm header (the address comes from the route); default a random port")
    String src;

    @Option(names = "--ps", paramLabel = "tcp|udp|ib|ipoib", description = "port space (default tcp)")
    String ps = "tcp";

    @Option(names = "--timeout", paramLabel = "MS", description = "give up after this long (default 3000)")
    long timeout = 3000;

    @Option(names = "--retry", paramLabel = "MS",
            description = "resend the REQ this often until answered (default 1000)")
    long retry = 1000;

    @Option(names = "--hold", paramLabel = "MS",
            description = "after REP and RTU, keep the connection this long, then DREQ and wait for DREP")
    Long hold;

    @Option(names = "--no-wait-rep",
            description = "stop at the MRA (the request reached a listener) instead of waiting for its REP")
    boolean noWaitRep;

    @Option(names = "--cm-timeout", paramLabel = "T",
            description = "the REQ's CM response timeout exponent, 4.096 µs × 2^T (default 20, as rdma_cm)")
    int cmTimeout = 20;

    @Option(names = "--json", description = "machine-readable output")
    boolean json;

    @Override
    public Integer call() throws Exception {
        InetSocketAddress to = InetAddresses.parseEndpoint("--dst", dst);
        int srcPort = src == null ? 0xc000 + (int) (Math.random() * 0x3fff)
                : InetAddresses.parseEndpoint("--src", src).getPort();
        NextHop hop = NextHop.resolve(to.getAddress(), Math.min(timeout, 2000));
        ActiveSide.Outcome o;
        try (ActiveSide side = new ActiveSide(hop)) {
            o = side.connect(to.getAddress(), to.getPort(), srcPort, PortSpace.parse(ps),
                    new ActiveSide.Options(timeout, retry, !noWaitRep, hold == null ? -1 : hold, cmTimeout));
        }
        if (json) {
            ObjectNode j = TopologyView.JSON.createObjectNode();
            j.put("dst", InetAddresses.toText(to.getAddress()) + ":" + to.getPort());
            j.put("src", InetAddresses.toText(hop.src()) + ":" + srcPort);
            j.put("localCommId", String.format("0x%08x", o.localCommId()));
            j.put("result", o.result());
            if (o.rejectReason() == null) {
                j.putNull("rejectReason");
            } else {
                j.put("rejectReason", o.rejectReason());
            }
            j.put("elapsedMicros", o.elapsedMicros());
            j.put("reqsSent", o.sent());
            var steps = j.putObject("stepsMicros");
            o.steps().forEach(steps::put);
            if (o.disconnect() != null) {
                j.put("disconnect", o.disconnect());
            }
            terminal.out().println(TopologyView.JSON.writeValueAsString(j));
        } else {
            String what = switch (o.result()) {
                case "rej" -> "REJ " + o.rejectReason() + (o.rejectReason() == 8 ? " (invalid service ID)"
                        : o.rejectReason() == 28 ? " (consumer defined)" : "");
                case "mra" -> "MRA: delivered to a listener (no REP)";
                case "rep" -> "REP: connected (RTU sent)" + (o.disconnect() == null ? "" : ", then "
                        + switch (o.disconnect()) {
                    case "drep" -> "DREQ answered by DREP";
                    case "peer" -> "disconnected by the peer";
                    default -> "DREQ unanswered";
                });
                default -> "no answer within " + timeout + " ms";
            };
            StringBuilder t = new StringBuilder();
            o.steps().forEach((k, v) -> t.append(' ').append(k).append('@')
                    .append(String.format("%.1fms", v / 1000.0)));
            terminal.out().printf("%s:%d comm 0x%08x: %s after %.1f ms (%d REQ sent;%s)%n",
                    InetAddresses.toText(to.getAddress()), to.getPort(), o.localCommId(), what,
                    o.elapsedMicros() / 1000.0, o.sent(), t);
        }
        boolean ok = o.result().equals("rep") ? o.disconnect() == null
                || !o.disconnect().equals("no-drep") : o.result().equals("mra");
        return ok ? ExitCode.OK : ExitCode.NO;
    }
}
