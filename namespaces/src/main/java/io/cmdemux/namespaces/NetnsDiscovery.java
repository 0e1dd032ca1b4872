package io.cmdemux.namespaces;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Finds every network namespace on the host: the named ones in /run/netns and every one that a
 * process runs in (/proc/PID/ns/net), de-duplicated by inode. Entries that cannot be read (even
 * root gets EACCES on some /proc/PID/ns/net) are counted, not fatal.
 */
public final class NetnsDiscovery {
    private final Path runNetns;
    private final Path proc;

    public NetnsDiscovery() {
        this(Path.of("/run/netns"), Path.of("/proc"));
    }

    public NetnsDiscovery(Path runNetns, Path proc) {
        this.runNetns = runNetns;
        this.proc = proc;
    }

    public Path runNetns() {
        return runNetns;
    }

    /**
     * @param namespaces the host namespace first, then the others by first name and inode
     * @param unreadable /proc entries skipped because they could not be read
     */
    public record Scan(NetnsId self, List<DiscoveredNetns> namespaces, int unreadable) {
        public Scan {
            namespaces = List.copyOf(namespaces);
        }
    }

    public Scan scan() throws IOException {
        Path selfPath = proc.resolve("self/ns/net");
        NetnsId self = idOf(selfPath);
        Map<NetnsId, TreeSet<String>> names = new LinkedHashMap<>();
        Map<NetnsId, String> paths = new LinkedHashMap<>();
        names.put(self, new TreeSet<>());
        paths.put(self, selfPath.toString());
        int unreadable = 0;

        if (Files.isDirectory(runNetns)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(runNetns)) {
                for (Path p : ds) {
                    NetnsId id;
                    try {
                        id = idOf(p);
                    } catch (IOException e) {
                        unreadable++;
                        continue;
                    }
                    // A file left behind by a failed `ip netns add` is a plain tmpfs file, not an nsfs mount.
                    if (id.dev() != self.dev()) {
                        continue;
                    }
                    names.computeIfAbsent(id, k -> new TreeSet<>()).add(p.getFileName().toString());
                    paths.merge(id, p.toString(), (old, neu) -> old.startsWith(runNetns.toString()) ? old : neu);
                }
            }
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(proc, NetnsDiscovery::isPid)) {
            for (Path pidDir : ds) {
                Path ns = pidDir.resolve("ns/net");
                NetnsId id;
                try {
                    id = idOf(ns);
                } catch (IOException | SecurityException e) {
                    unreadable++; // EACCES on /proc/1/ns/net in some sandboxes, ENOENT for exited processes
                    continue;
                }
                names.computeIfAbsent(id, k -> new TreeSet<>());
                paths.putIfAbsent(id, ns.toString());
            }
        }
        List<DiscoveredNetns> out = new ArrayList<>();
        for (Map.Entry<NetnsId, TreeSet<String>> e : names.entrySet()) {
            NetnsId id = e.getKey();
            out.add(new DiscoveredNetns(id, new ArrayList<>(e.getValue()), paths.get(id), id.equals(self)));
        }
        out.sort(ORDER);
        return new Scan(self, out, unreadable);
    }

    /** Host first, then named namespaces by first name, then unnamed ones by inode. */
    public static final Comparator<DiscoveredNetns> ORDER = order(DiscoveredNetns::self, DiscoveredNetns::names,
            DiscoveredNetns::id);

    /** {@link #ORDER} for anything that has the three (a snapshot's namespaces, listed as a scan would). */
    static <T> Comparator<T> order(java.util.function.Predicate<T> self,
            java.util.function.Function<T, List<String>> names, java.util.function.Function<T, NetnsId> id) {
        return Comparator.comparing((T d) -> !self.test(d))
                .thenComparing(d -> names.apply(d).isEmpty())
                .thenComparing(d -> names.apply(d).isEmpty() ? "" : names.apply(d).get(0))
                .thenComparing(id);
    }

    private static boolean isPid(Path p) {
        String n = p.getFileName().toString();
        if (n.isEmpty()) {
            return false;
        }
        for (int i = 0; i < n.length(); i++) {
            if (!Character.isDigit(n.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** stat -L: the nsfs identity behind a namespace file or /proc symlink. */
    public static NetnsId idOf(Path p) throws IOException {
        Object dev = Files.getAttribute(p, "unix:dev");
        Object ino = Files.getAttribute(p, "unix:ino");
        return new NetnsId(((Number) dev).longValue(), ((Number) ino).longValue());
    }
}
