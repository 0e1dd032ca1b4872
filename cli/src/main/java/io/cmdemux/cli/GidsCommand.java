package io.cmdemux.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.cmdemux.render.GidView;
import io.cmdemux.render.TopologyView;
import io.cmdemux.gid.GidCheck;
import io.cmdemux.gid.GidProblem;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.pods.PodDirectory;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "gids", mixinStandardHelpOptions = true,
        description = {"Every RDMA port's GID table, show_gids style, with each entry's ndev,"
                + " its namespace and the namespace's names.",
                "Soft ports (--rdma-port) show the table a device registered now would have"
                        + " (rdma_roce_rescan_port order)."},
        subcommands = GidsCommand.Check.class)
final class GidsCommand implements Callable<Integer> {
    @Mixin
    Terminal terminal = new Terminal();

    @Option(names = "--device", paramLabel = "D", description = "only this RDMA device")
    String device;

    @Option(names = "--json", description = "machine-readable output")
    boolean json;

    @Mixin
    RdmaOptions rdma = new RdmaOptions();

    @Mixin
    PodOptions pods = new PodOptions();

    @Override
    public Integer call() throws Exception {
        RdmaSource.Loaded l = RdmaSource.load(rdma);
        PodDirectory registered = pods.load(rdma.snapshot);
        if (device != null && l.rdma().device(device).isEmpty()) {
            throw new IllegalArgumentException("no RDMA device " + device + " (there are: "
                    + String.join(", ", l.rdma().devices().stream().map(RdmaDevice::name).toList()) + ")");
        }
        if (json) {
            ArrayNode gids = GidView.json(l.topology(), l.rdma(), device, registered);
            terminal.out().println(TopologyView.JSON.writeValueAsString(gids));
        } else {
            terminal.out().print(GidView.text(l.topology(), l.rdma(), device, registered));
        }
        for (String p : l.problems()) {
            terminal.err().println("cmdemux: " + p);
        }
        return ExitCode.OK;
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = {"Find the GID problems pods run into, each with a one-line fix; exit 1 if there is any:",
                    "pod interfaces that are no upper of an RDMA port's netdev (veth, bridge: zero GIDs),"
                    + " the same IP in two namespaces",
                    "on one port, IPoIB children whose P_Key is not in the port's table,"
                    + " a kernel table that differs from the computed one,",
                    "and ib_core's exclusive netns mode where pods need the shared one."})
    static final class Check implements Callable<Integer> {
        @Mixin
        Terminal terminal = new Terminal();

        @Option(names = "--json", description = "machine-readable output")
        boolean json;

        @Mixin
        RdmaOptions rdma = new RdmaOptions();

        @Override
        public Integer call() throws Exception {
            RdmaSource.Loaded l = RdmaSource.load(rdma);
            List<GidProblem> problems = GidCheck.run(l.topology(), l.rdma(), l.problems());
            if (json) {
                terminal.out().println(TopologyView.JSON.writeValueAsString(GidView.checkJson(problems)));
            } else {
                terminal.out().print(GidView.checkText(problems));
            }
            return problems.isEmpty() ? ExitCode.OK : ExitCode.NO;
        }
    }
}
