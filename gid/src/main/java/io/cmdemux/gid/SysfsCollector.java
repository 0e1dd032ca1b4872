package io.cmdemux.gid;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Copies the sysfs files that {@link SysfsReader} reads into snapshot entries
 * ({@link SysfsLayout#snapshot} layout), so that a snapshot file carries the RDMA tables.
 * Unreadable attributes (sysfs answers EINVAL for the ndev and type of a free GID slot) and
 * free slots (the zero GID) are left out; the reader treats a missing GID as a free slot.
 */
public final class SysfsCollector {
    private static final int MAX_ATTRIBUTE = 4096;
    private static final String ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000";
    private static final List<String> DEVICE_FILES = List.of("node_guid", "node_type", "sys_image_guid");
    private static final List<String> PORT_FILES = List.of("link_layer", "state", "phys_state");
    private static final List<String> NET_FILES = List.of("type", "address", "dev_port", "dev_id", "pkey");

    private SysfsCollector() {}

    /** The snapshot entries (zip path → bytes) for everything under a live or fixture layout. */
    public static Map<String, byte[]> collect(SysfsLayout from) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        Set<String> devices = new HashSet<>();
        for (Path dev : list(from.infiniband())) {
            String d = SysfsLayout.SNAPSHOT_INFINIBAND + "/" + name(dev);
            for (String f : DEVICE_FILES) {
                copy(dev.resolve(f), d + "/" + f, out);
            }
            String target = link(dev.resolve("device"));
            if (target != null) {
                out.put(d + "/device", target.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                devices.add(last(target));
            }
            for (Path port : list(dev.resolve("ports"))) {
                String p = d + "/ports/" + name(port);
                for (String f : PORT_FILES) {
                    copy(port.resolve(f), p + "/" + f, out);
                }
                for (Path gid : list(port.resolve("gids"))) {
                    byte[] b = read(gid);
                    if (b == null || new String(b, java.nio.charset.StandardCharsets.UTF_8).strip().equals(ZERO_GID)) {
                        continue;
                    }
                    String i = name(gid);
                    out.put(p + "/gids/" + i, b);
                    copy(port.resolve("gid_attrs/types/" + i), p + "/gid_attrs/types/" + i, out);
                    copy(port.resolve("gid_attrs/ndevs/" + i), p + "/gid_attrs/ndevs/" + i, out);
                }
                for (Path pkey : list(port.resolve("pkeys"))) {
                    copy(pkey, p + "/pkeys/" + name(pkey), out);
                }
            }
        }
        for (Path nd : list(from.net())) {
            byte[] type = read(nd.resolve("type"));
            String target = link(nd.resolve("device"));
            boolean ipoib = type != null && new String(type, java.nio.charset.StandardCharsets.UTF_8).strip().equals("32");
            if (!ipoib && (target == null || !devices.contains(last(target)))) {
                continue; // only the netdevs of RDMA devices
            }
            String n = SysfsLayout.SNAPSHOT_NET + "/" + name(nd);
            for (String f : NET_FILES) {
                copy(nd.resolve(f), n + "/" + f, out);
            }
            if (target != null) {
                out.put(n + "/device", target.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            if (Files.exists(nd.resolve("create_child"))) {
                out.put(n + "/create_child", new byte[0]);
            }
        }
        copy(from.netnsMode(), SysfsLayout.SNAPSHOT_NETNS_MODE, out);
        return out;
    }

    private static String last(String target) {
        String t = target.endsWith("/") ? target.substring(0, target.length() - 1) : target;
        return t.substring(t.lastIndexOf('/') + 1);
    }

    private static String name(Path p) {
        return p.getFileName().toString().replace("/", "");
    }

    private static List<Path> list(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                out.add(p);
            }
        }
        out.sort(null);
        return out;
    }

    private static void copy(Path from, String to, Map<String, byte[]> out) {
        byte[] b = read(from);
        if (b != null) {
            out.put(to, b);
        }
    }

    private static byte[] read(Path p) {
        if (!Files.isRegularFile(p)) {
            return null;
        }
        try (InputStream in = Files.newInputStream(p)) {
            byte[] b = in.readNBytes(MAX_ATTRIBUTE + 1);
            return b.length > MAX_ATTRIBUTE ? null : b;
        } catch (IOException e) {
            return null; // EINVAL from a free slot's attribute, or gone meanwhile
        }
    }

    private static String link(Path p) {
        try {
            if (Files.isSymbolicLink(p)) {
                return Files.readSymbolicLink(p).toString();
            }
        } catch (IOException e) {
            return null;
        }
        byte[] b = read(p);
        return b == null ? null : new String(b, java.nio.charset.StandardCharsets.UTF_8).strip();
    }
}
