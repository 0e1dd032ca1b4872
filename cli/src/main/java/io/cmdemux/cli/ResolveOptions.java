package io.cmdemux.cli;

import io.cmdemux.render.Format;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.InetAddresses;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** What explain and replay share: where the state comes from, the listeners, the mode. */
final class ResolveOptions {
    @Mixin
    RdmaOptions rdma = new RdmaOptions();

    @Option(names = "--lab", paramLabel = "DIR",
            description = "a kernel-lab fixture directory: its rtnl/ and sysfs/ as the host,"
                    + " its listeners.tsv as the listeners")
    Path lab;

    @Option(names = "--listener", paramLabel = "NS:ADDR:PORT[:ps][:afonly]",
            description = "a listener (repeatable, later is newer); NS is a name under /run/netns, an inode or host;"
                    + " IPv6 in brackets; ADDR ib for AF_IB")
    List<String> listeners = new ArrayList<>();

    @Option(names = "--listeners", paramLabel = "FILE",
            description = "listeners as a JSON array of {netns, address, port, ps, afonly, boundIfindex,"
            + " device, qpType}")
    Path listenersFile;

    @Option(names = "--mode", paramLabel = "kernel|netstack|both",
            description = "which resolver (default: both, and say where they disagree)")
    String mode = "both";

    @Option(names = "--json", description = "machine-readable output (the same as --format json)")
    boolean json;

    @Option(names = "--format", paramLabel = "text|json|dot|svg",
            description = "output format (default text); dot and svg draw the walk on the host's picture"
                    + " (svg needs the Debian package graphviz)")
    String format;

    /** The output format; --json is kept as the short form of --format json. */
    Format format() {
        return Format.choose(format, json, "text, json, dot or svg");
    }

    /** The modes to run; the first is the one whose outcome sets the exit code. */
    List<ResolverMode> modes() {
        switch (mode.toLowerCase()) {
            case "kernel":
                return List.of(ResolverMode.KERNEL);
            case "netstack":
                return List.of(ResolverMode.NETSTACK);
            case "both":
                return List.of(ResolverMode.KERNEL, ResolverMode.NETSTACK);
            default:
                throw new IllegalArgumentException("--mode " + mode + ": expected kernel, netstack or both");
        }
    }

    /** The host these options describe; what could not be read is said on {@code warnings} and left out. */
    HostState load(PrintWriter warnings) {
        if (lab != null) {
            if (rdma.snapshot != null) {
                throw new IllegalArgumentException("--lab and --snapshot both name the host; give one");
            }
            rdma.snapshot = lab;
        }
        RdmaSource.Loaded l = RdmaSource.load(rdma);
        for (String p : l.problems()) {
            warnings.println("cmdemux: " + p);
        }
        TopologySnapshot topo = l.topology();
        ListenerTable table = ListenerArgs.table(topo, listeners, listenersFile);
        if (lab != null) {
            List<Listener> all = new ArrayList<>(labListeners(topo, lab.resolve("listeners.tsv")));
            long order = all.size() + 1;
            for (Listener x : table.all()) {
                all.add(new Listener(x.netns(), x.portSpace(), x.port(), x.address(), x.afonly(), x.boundIfindex(),
                        order++, x.device(), x.owner(), x.qpType()));
            }
            table = new ListenerTable(1, all);
        }
        RdmaTopology rdmaTopo = l.rdma();
        return new HostState(topo, rdmaTopo, table);
    }

    /**
     * listeners.tsv of a lab fixture: name TAB addr TAB port TAB ps [TAB bound-ifindex], in bind
     * order. ps is the kernel's RDMA_NLDEV_ATTR_RES_PS by name; the QP type, which the RES_CM_ID
     * dump does not report for a listener, is the one ucma gives the port space.
     */
    static List<Listener> labListeners(TopologySnapshot topo, Path tsv) {
        List<Listener> out = new ArrayList<>();
        if (!Files.isRegularFile(tsv)) {
            return out;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(tsv, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new EnvironmentException(tsv + ": " + e.getMessage(), e);
        }
        long order = 1;
        for (String line : lines) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t");
            if (f.length < 3) {
                throw new IllegalArgumentException(tsv + ": expected name, addr, port[, ps] in '" + line + "'");
            }
            var ns = topo.findNamespace(f[0].trim())
                    .orElseThrow(() -> new IllegalArgumentException(tsv + ": no namespace " + f[0]));
            String addr = f[1].trim();
            PortSpace ps = f.length > 3 ? PortSpace.parse(f[3].trim()) : PortSpace.TCP;
            int boundIfindex = f.length > 4 ? Integer.parseInt(f[4].trim()) : 0;
            var ip = addr.equalsIgnoreCase("ib") ? null : InetAddresses.parse(addr);
            out.add(new Listener(ns.id(), ps, Integer.parseInt(f[2].trim()), ip, Listener.defaultAfonly(ip),
                    boundIfindex, order++, null, "lab"));
        }
        return out;
    }
}
