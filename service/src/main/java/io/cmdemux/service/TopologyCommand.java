package io.cmdemux.service;

import io.cmdemux.namespaces.TopologySnapshot;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import io.cmdemux.service.pods.PodDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "topology", mixinStandardHelpOptions = true,
        description = "Every namespace with its links: kind, mode, parent (across namespaces), master, MAC, state, addresses.")
final class TopologyCommand implements Callable<Integer> {
    @Option(names = "--json", description = "machine-readable output")
    boolean json;

    @Option(names = "--snapshot", paramLabel = "FILE", description = "read a snapshot file or fixture directory instead of the live host")
    Path snapshot;

    @Mixin
    PodOptions pods = new PodOptions();

    @Override
    public Integer call() throws Exception {
        TopologySnapshot snap = TopologySource.load(snapshot);
        PodDirectory registered = pods.load(snapshot);
        if (json) {
            System.out.println(TopologyView.JSON.writeValueAsString(TopologyView.json(snap, registered)));
        } else {
            System.out.print(TopologyView.text(snap, registered));
        }
        if (!snap.problems().isEmpty()) {
            System.err.println("cmdemux: " + snap.problems().size() + " netlink messages could not be decoded; first: " + snap.problems().get(0));
        }
        return Main.EXIT_OK;
    }
}
