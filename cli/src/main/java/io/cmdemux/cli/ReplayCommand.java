package io.cmdemux.cli;

import io.cmdemux.render.DecisionPictures;
import io.cmdemux.render.DecisionView;
import io.cmdemux.render.Format;
import io.cmdemux.render.Pictures;
import io.cmdemux.render.TopologyView;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.ingress.capture.CaptureReader;
import io.cmdemux.ingress.capture.CapturedFrame;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.IngressPorts;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.PacketMetas;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.resolve.TraceStep;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.RoceFrame;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.render.picture.Graph;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"One decision for every CM REQ and SIDR REQ in a capture, against a snapshot,"
                + " a lab fixture or the live host.",
                "The ingress port is the one whose GID table holds the request's destination GID,"
                + " unless --device names it;",
                "when several do, the one whose net device the frame lands on (a bond's over its active port's)."})
final class ReplayCommand implements Callable<Integer> {
    @Mixin
    Terminal terminal = new Terminal();

    @Parameters(paramLabel = "CAPTURE", description = "pcap or pcapng")
    Path capture;

    @Option(names = "--device", paramLabel = "D", description = "the RDMA device every request arrived on")
    String device;

    @Option(names = "--port", paramLabel = "P", description = "port number (default 1)")
    int port = 1;

    @Option(names = "--frame", paramLabel = "N",
            description = "only the request in frame N of the capture (as the text output numbers them); "
            + "--format dot|svg draws one request and needs it")
    Long frame;

    @Mixin
    ResolveOptions opts = new ResolveOptions();

    /** One replayed request: what it was and what each mode decided. */
    record Replayed(long frame, PacketMeta meta, List<Decision> decisions) {}

    @Override
    public Integer call() throws Exception {
        Format f = opts.format();
        if (f.picture() && frame == null) {
            throw new IllegalArgumentException("--format " + f.name().toLowerCase()
                    + " draws one request: add --frame N (the text output numbers them)");
        }
        HostState state = opts.load(terminal.err());
        List<ResolverMode> modes = opts.modes();
        List<Replayed> all = replay(state, capture, device, port, modes);
        List<Replayed> chosen = frame == null ? all : all.stream().filter(r -> r.frame() == frame).toList();
        if (frame != null && chosen.isEmpty()) {
            List<String> frames = all.stream().limit(20).map(r -> Long.toString(r.frame())).toList();
            throw new IllegalArgumentException("--frame " + frame
                    + ": no CM REQ or SIDR REQ in that frame of " + capture
                    + (all.isEmpty() ? " (the capture has none)" : " (requests are in frames "
                            + String.join(", ", frames) + (all.size() > 20 ? ", ..." : "") + ")"));
        }
        if (f.picture()) {
            Replayed r = chosen.get(0);
            Decision second = r.decisions().size() == 2 ? r.decisions().get(1) : null;
            Decision first = r.decisions().get(0);
            Graph graph = DecisionPictures.graph(state.topology(), state.rdma(), r.meta(), first, second);
            terminal.out().print(Pictures.render(graph, f));
            return ExitCode.OK;
        }
        for (Replayed r : chosen) {
            if (f == Format.JSON) {
                ObjectNode o = modes.size() == 2 ? DecisionView.bothJson(state.topology(), r.decisions().get(0),
                        r.decisions().get(1)) : DecisionView.json(state.topology(), r.decisions().get(0));
                ObjectNode line = TopologyView.JSON.createObjectNode();
                line.put("frame", r.frame());
                line.put("localCommId", String.format("0x%08x", r.meta().localCommId()));
                line.setAll(o);
                terminal.out().println(TopologyView.JSON.writeValueAsString(line));
            } else {
                terminal.out().printf("frame %d comm 0x%08x %s -> %s: %s%n", r.frame(), r.meta().localCommId(),
                        text(r.meta().srcIp()), text(r.meta().dstIp()),
                        DecisionView.summary(state.topology(), r.decisions().get(0)));
            }
        }
        return ExitCode.OK;
    }

    static List<Replayed> replay(HostState state, Path capture, String device, int port, List<ResolverMode> modes) {
        List<Replayed> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(capture); CaptureReader reader = new CaptureReader(in)) {
            for (CapturedFrame f = reader.next(); f != null; f = reader.next()) {
                if (!(f.result() instanceof FrameResult.Decoded d)) {
                    continue;
                }
                RoceFrame frame = d.frame();
                Optional<IngressPorts.Choice> arrival = device != null ? Optional.empty()
                        : IngressPorts.forFrame(state, frame.l3().dst(), frame.l2() == null ? null : frame.l2().dst());
                String dev = device != null ? device : arrival.map(IngressPorts.Choice::device)
                        .orElse(state.rdma().devices().isEmpty() ? "none" : state.rdma().devices().get(0).name());
                int p = arrival.map(IngressPorts.Choice::port).orElse(port);
                Optional<PacketMeta> meta = PacketMetas.of(dev, p, frame);
                if (meta.isEmpty()) {
                    continue;
                }
                List<Decision> ds = new ArrayList<>();
                for (ResolverMode m : modes) {
                    if (!frame.icrcValid()) {
                        ds.add(icrcDrop(state, frame, m));
                        continue;
                    }
                    Decision decision = Resolver.resolve(state, meta.get(), m);
                    ds.add(arrival.isPresent() ? decision.withFirstStep(arrival.get().why()) : decision);
                }
                out.add(new Replayed(f.index(), meta.get(), ds));
            }
        } catch (IOException e) {
            throw new EnvironmentException(capture + ": " + e.getMessage(), e);
        } catch (MalformedException e) {
            throw new EnvironmentException(capture + ": not a capture: " + e.getMessage(), e);
        }
        return out;
    }

    /**
     * A frame whose ICRC is wrong or missing never reaches the CM: rxe_icrc_check fails (a NIC checks it in
     * hardware) and it is dropped.
     */
    private static Decision icrcDrop(HostState state, RoceFrame frame, ResolverMode mode) {
        String why = "the ICRC is " + (frame.icrcCheck() == RoceFrame.IcrcCheck.MISSING ? "missing" : "wrong")
                + ": the receiver drops the frame before the CM sees it (rxe_icrc_check; a NIC checks it in hardware)";
        return new Decision(Decision.Outcome.DROP, null, why, Decision.Drop.BAD_ICRC, null, null, null, mode,
                List.of(new TraceStep("icrc", "rxe_icrc_check", "ICRC " + frame.icrcCheck().name().toLowerCase(),
                        List.of(), null, why)),
                state.topology().generation());
    }

    private static String text(java.net.InetAddress a) {
        return a == null ? "AF_IB" : io.cmdemux.netdev.InetAddresses.toText(a);
    }
}
