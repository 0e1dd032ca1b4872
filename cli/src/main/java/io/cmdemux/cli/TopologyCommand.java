package io.cmdemux.cli;

import io.cmdemux.render.Format;
import io.cmdemux.render.Pictures;
import io.cmdemux.render.TopologyView;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.render.picture.Focus;
import io.cmdemux.render.picture.TopologyGraph;
import java.util.ArrayList;
import java.util.List;
import io.cmdemux.pods.PodDirectory;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "topology", mixinStandardHelpOptions = true,
        description = {"Every namespace with its links: kind, mode, parent (across namespaces), master, MAC, state,"
                + " addresses.",
                "--format dot|svg draws it with the RDMA ports and their GID ndevs; svg needs Graphviz"
                        + " (Debian package graphviz)."})
final class TopologyCommand implements Callable<Integer> {
    @Mixin
    Terminal terminal = new Terminal();

    @Option(names = "--format", paramLabel = "text|json|dot|svg", description = "output format (default text)")
    String format;

    @Option(names = "--json", description = "machine-readable output (the same as --format json)")
    boolean json;

    @Option(names = "--namespace", paramLabel = "NAME",
            description = "draw only this namespace (a name under /run/netns, host, or an inode),"
                    + " with the links its own stand on; repeatable")
    List<String> namespaces = new ArrayList<>();

    @Option(names = "--port", paramLabel = "DEV/N",
            description = "draw only this RDMA port's part of the host: its netdev, every upper of it, its GID ndevs")
    String port;

    @Mixin
    RdmaOptions rdma = new RdmaOptions();

    @Mixin
    PodOptions pods = new PodOptions();

    @Override
    public Integer call() throws Exception {
        Format f = Format.choose(format, json, "text, json, dot or svg");
        if (!f.picture()) {
            if (!namespaces.isEmpty() || port != null) {
                throw new IllegalArgumentException("--namespace and --port restrict the pictures:"
                        + " add --format dot or --format svg");
            }
            TopologySnapshot snap = TopologySource.load(rdma.snapshot);
            PodDirectory registered = pods.load(rdma.snapshot);
            if (f == Format.JSON) {
                terminal.out().println(TopologyView.JSON.writeValueAsString(TopologyView.json(snap, registered)));
            } else {
                terminal.out().print(TopologyView.text(snap, registered));
            }
            warnProblems(snap);
            return ExitCode.OK;
        }
        RdmaSource.Loaded l = RdmaSource.load(rdma);
        for (String p : l.problems()) {
            terminal.err().println("cmdemux: " + p);
        }
        Focus.Selection sel = new Focus(namespaces, port).select(l.topology(), l.rdma());
        terminal.out().print(Pictures.render(TopologyGraph.build(l.topology(), l.rdma(), sel), f));
        warnProblems(l.topology());
        return ExitCode.OK;
    }

    private void warnProblems(TopologySnapshot snap) {
        if (!snap.problems().isEmpty()) {
            terminal.err().println("cmdemux: " + snap.problems().size()
                    + " netlink messages could not be decoded; first: " + snap.problems().get(0));
        }
    }
}
