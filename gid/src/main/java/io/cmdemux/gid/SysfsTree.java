package io.cmdemux.gid;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The one reader of the sysfs tree under a {@link SysfsLayout}, for {@link SysfsReader}, which parses
 * what it reads, and {@link SysfsCollector}, which copies it into a snapshot. It knows how sysfs answers:
 * directories listed in name order, an attribute of at most a page, EINVAL for the attributes of a free
 * GID slot, and a {@code device} entry that is a symlink in /sys and a regular file holding the link's
 * target in a copy. The reads that count their problems are the parser's; the copy takes what it can
 * and leaves the counting to whoever reads the copy.
 */
final class SysfsTree {
    /** One sysfs attribute is at most a page; anything longer is garbage. */
    private static final int MAX_ATTRIBUTE = 4096;
    private static final Pattern NUMBER = Pattern.compile("\\d{1,9}");

    private final List<String> problems;

    /** A reader that adds one line per problem it meets to {@code problems}. */
    SysfsTree(List<String> problems) {
        this.problems = problems;
    }

    // ---- where things are (drivers/infiniband/core/sysfs.c, net/core/net-sysfs.c) ----

    /** A class device's link to its parent device (the PCI function). */
    static Path deviceLink(Path classDevice) {
        return classDevice.resolve("device");
    }

    static Path ports(Path rdmaDevice) {
        return rdmaDevice.resolve("ports");
    }

    static Path gids(Path port) {
        return port.resolve("gids");
    }

    static Path gidType(Path port, String index) {
        return port.resolve("gid_attrs/types/" + index);
    }

    static Path gidNdev(Path port, String index) {
        return port.resolve("gid_attrs/ndevs/" + index);
    }

    static Path pkeys(Path port) {
        return port.resolve("pkeys");
    }

    // ---- the copy's reads: no problems counted ----

    /** The entries of {@code dir} in name order; none when it is no directory. */
    static List<Path> list(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                out.add(p);
            }
        }
        out.sort(Comparator.comparing(SysfsTree::name));
        return out;
    }

    /** The attribute's bytes; null when missing, unreadable (a free slot's EINVAL, gone meanwhile) or too long. */
    static byte[] bytes(Path p) {
        byte[] b = readUpToLimit(p);
        return b == null || b.length > MAX_ATTRIBUTE ? null : b;
    }

    /** A {@code device} entry's target as the symlink or the file holding it says; null when there is none. */
    static String target(Path p) {
        try {
            if (Files.isSymbolicLink(p)) {
                return Files.readSymbolicLink(p).toString();
            }
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
        byte[] b = bytes(p);
        return b == null ? null : new String(b, StandardCharsets.UTF_8).strip();
    }

    /**
     * The last component of a link target (the PCI device, "0000:81:00.0"). The relative paths differ
     * between /sys/class/net and /sys/class/infiniband; the device's own name does not.
     */
    static String lastComponent(String target) {
        String t = target.endsWith("/") ? target.substring(0, target.length() - 1) : target;
        return t.substring(t.lastIndexOf('/') + 1);
    }

    /** An entry's own name. */
    static String name(Path p) {
        return p.getFileName().toString().replace("/", "");
    }

    // ---- the parser's reads: problems counted ----

    /** As {@link #list}, with a directory that cannot be listed counted and read as empty. */
    List<Path> children(Path dir) {
        try {
            return list(dir);
        } catch (IOException e) {
            problems.add(dir + ": cannot list: " + e.getMessage());
            return new ArrayList<>();
        }
    }

    /** The subdirectories of {@code dir} in name order: the devices of a class. */
    List<Path> directories(Path dir) {
        List<Path> out = new ArrayList<>();
        for (Path p : children(dir)) {
            if (Files.isDirectory(p)) {
                out.add(p);
            }
        }
        return out;
    }

    /** Entries named by a decimal number, by number; other names are counted as problems. */
    TreeMap<Integer, Path> numbered(Path dir) {
        TreeMap<Integer, Path> out = new TreeMap<>();
        for (Path p : children(dir)) {
            String n = name(p);
            if (NUMBER.matcher(n).matches()) {
                out.put(Integer.parseInt(n), p);
            } else {
                problems.add(p + ": unexpected entry (expected a number)");
            }
        }
        return out;
    }

    /** The attribute's text without the trailing newline; empty when missing, unreadable, empty or too long. */
    Optional<String> text(Path p) {
        // sysfs answers EINVAL for attributes of free GID slots; callers decide whether a missing one matters.
        byte[] b = readUpToLimit(p);
        if (b == null) {
            return Optional.empty();
        }
        if (b.length > MAX_ATTRIBUTE) {
            problems.add(p + ": longer than a sysfs attribute can be");
            return Optional.empty();
        }
        String s = new String(b, StandardCharsets.UTF_8).strip();
        return s.isEmpty() ? Optional.empty() : Optional.of(s);
    }

    /** A decimal attribute; empty when missing, and counted when it is no number. */
    OptionalInt number(Path p) {
        Optional<String> t = text(p);
        if (t.isEmpty()) {
            return OptionalInt.empty();
        }
        if (!NUMBER.matcher(t.get()).matches()) {
            problems.add(p + ": not a number: '" + clip(t.get()) + "'");
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(t.get()));
    }

    /** dev_port is decimal, dev_id is "0x%x" (net-sysfs.c); -1 when absent or malformed. */
    int hexOrDec(Path p) {
        Optional<String> t = text(p);
        if (t.isEmpty()) {
            return -1;
        }
        String s = t.get();
        try {
            if (s.startsWith("0x")) {
                return s.length() > 2 && s.length() <= 10 ? (int) Long.parseLong(s.substring(2), 16) : notANumber(p, s);
            }
            return NUMBER.matcher(s).matches() ? Integer.parseInt(s) : notANumber(p, s);
        } catch (NumberFormatException e) {
            return notANumber(p, s);
        }
    }

    private int notANumber(Path p, String s) {
        problems.add(p + ": not a number: '" + clip(s) + "'");
        return -1;
    }

    /** The device a {@code device} entry links to, by its own name; null when there is none. */
    String device(Path p) {
        String target;
        try {
            target = Files.isSymbolicLink(p) ? Files.readSymbolicLink(p).toString() : text(p).orElse(null);
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
        if (target == null) {
            return null;
        }
        String last = lastComponent(target);
        return last.isEmpty() || last.equals("..") || last.equals(".") ? null : last;
    }

    /** Counts a problem the parser found in what it read. */
    void problem(String line) {
        problems.add(line);
    }

    /** Keeps problem messages one line and short, whatever garbage a file holds. */
    static String clip(String s) {
        String one = s.replaceAll("[\\p{Cntrl}]", "?");
        return one.length() > 60 ? one.substring(0, 60) + "..." : one;
    }

    /** At most one byte more than an attribute can hold, so that a longer file shows; null when unreadable. */
    private static byte[] readUpToLimit(Path p) {
        if (!Files.isRegularFile(p)) {
            return null;
        }
        try (InputStream in = Files.newInputStream(p)) {
            return in.readNBytes(MAX_ATTRIBUTE + 1);
        } catch (IOException e) {
            return null;
        }
    }
}
