package io.cmdemux.daemon;

import io.cmdemux.gid.GidCheck;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.render.OwnInterfacesView;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node Feature Discovery's local feature file (`features.d/cmdemux`, which nfd-worker's `local` source reads and
 * turns into node labels): whether the node serves RDMA CM per port, ib_core's netns mode, each port's GID types
 * and kind, and the number of GID problems `cmdemux gids check` would report. Rewritten whole and renamed into
 * place on every change (NFD ignores dot files, so `.cmdemux` is the draft), removed at exit.
 */
final class NodeFeatures implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeFeatures.class);
    /** NFD's own label namespace: nfd-master accepts it from every source without -extra-label-ns. */
    static final String PREFIX = "feature.node.kubernetes.io/cmdemux-";
    static final String FILE = "cmdemux";
    /** The local source ignores a feature file above 64 kB. */
    static final int MAX_BYTES = 64 * 1024;

    private final Path file;
    private final Path draft;
    private String written;

    NodeFeatures(Path dir) {
        this.file = dir.resolve(FILE);
        this.draft = dir.resolve("." + FILE);
    }

    /** The labels for a host state; names and values are valid Kubernetes label names and values. */
    static Map<String, String> labels(TopologySnapshot snap, RdmaTopology rdma) {
        Map<String, String> out = new TreeMap<>();
        out.put(PREFIX + "ready", "true");
        out.put(PREFIX + "netns-mode", rdma.netnsMode().name().toLowerCase());
        out.put(PREFIX + "gid-problems", Integer.toString(GidCheck.run(snap, rdma, List.of()).size()));
        out.put(PREFIX + "ports", Integer.toString(GidCheck.ports(rdma).size()));
        for (RdmaDevice d : rdma.devices()) {
            for (RdmaPort p : d.ports()) {
                String port = PREFIX + labelPart(d.name()) + "-" + p.number() + ".";
                out.put(port + "rdma-cm", p.state() != null && p.state().endsWith("ACTIVE") ? "ready" : "down");
                // A scheduler asks whether a NIC is behind the port: rxe and siw are software as much as ours.
                out.put(port + "kind", d.hardware() ? "hardware" : "soft");
                out.put(port + "link-layer", p.roce() ? "ethernet" : "infiniband");
                Set<GidType> types = EnumSet.noneOf(GidType.class);
                for (GidEntry e : p.gids()) {
                    types.add(e.type());
                }
                out.put(port + "gid-types", types.isEmpty() ? "none"
                        : types.stream().map(OwnInterfacesView::key).collect(Collectors.joining(".")));
            }
        }
        return out;
    }

    /** A device name as a label name's part: [A-Za-z0-9._-], at most 32 characters, alphanumeric at both ends. */
    static String labelPart(String name) {
        String s = name.replaceAll("[^A-Za-z0-9._-]", "_");
        s = s.length() > 32 ? s.substring(0, 32) : s;
        s = s.replaceAll("^[^A-Za-z0-9]+", "").replaceAll("[^A-Za-z0-9]+$", "");
        return s.isEmpty() ? "x" : s;
    }

    static String text(Map<String, String> labels) {
        StringBuilder sb = new StringBuilder("# cmdemux serve: RDMA CM features of this node (NFD local source);"
                + " rewritten on every change, removed when the daemon stops\n");
        labels.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        return sb.toString();
    }

    /** Writes the file when its text changed; a failure is logged once per change and retried on the next. */
    synchronized void update(TopologySnapshot snap, RdmaTopology rdma) {
        String next = text(labels(snap, rdma));
        if (next.equals(written)) {
            return;
        }
        byte[] bytes = next.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_BYTES) {
            log.warn("node features: {} bytes, more than NFD reads ({}); not written", bytes.length, MAX_BYTES);
            return;
        }
        try {
            Files.createDirectories(file.getParent());
            Files.write(draft, bytes);
            Files.move(draft, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            written = next;
        } catch (IOException e) {
            log.warn("node features: cannot write {}: {}", file, e.toString());
        }
    }

    @Override
    public synchronized void close() {
        try {
            Files.deleteIfExists(draft);
            Files.deleteIfExists(file);
        } catch (IOException e) {
            log.warn("node features: cannot remove {}: {}", file, e.toString());
        }
    }
}
