package io.cmdemux.gid;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Copies the sysfs files that {@link SysfsReader} reads into snapshot entries
 * ({@link SysfsLayout#snapshot} layout), so that a snapshot file carries the RDMA tables. It reads
 * them through {@link SysfsTree}, as the parser does. Unreadable attributes (sysfs answers EINVAL for
 * the ndev and type of a free GID slot) and free slots (the zero GID) are left out; the reader treats
 * a missing GID as a free slot.
 */
public final class SysfsCollector {
    private static final String ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000";
    private static final List<String> DEVICE_FILES = List.of("node_guid", "node_type", "sys_image_guid");
    private static final List<String> PORT_FILES = List.of("link_layer", "state", "phys_state");
    private static final List<String> NET_FILES = List.of("type", "address", "dev_port", "dev_id", "pkey");

    private SysfsCollector() {}

    /** The snapshot entries (zip path → bytes) for everything under a live or fixture layout. */
    public static Map<String, byte[]> collect(SysfsLayout from) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        Set<String> devices = new HashSet<>();
        for (Path dev : SysfsTree.list(from.infiniband())) {
            String d = SysfsLayout.SNAPSHOT_INFINIBAND + "/" + SysfsTree.name(dev);
            for (String f : DEVICE_FILES) {
                copy(dev.resolve(f), d + "/" + f, out);
            }
            String target = SysfsTree.target(SysfsTree.deviceLink(dev));
            if (target != null) {
                out.put(d + "/device", target.getBytes(StandardCharsets.UTF_8));
                devices.add(SysfsTree.lastComponent(target));
            }
            for (Path port : SysfsTree.list(SysfsTree.ports(dev))) {
                String p = d + "/ports/" + SysfsTree.name(port);
                for (String f : PORT_FILES) {
                    copy(port.resolve(f), p + "/" + f, out);
                }
                for (Path gid : SysfsTree.list(SysfsTree.gids(port))) {
                    byte[] b = SysfsTree.bytes(gid);
                    if (b == null || new String(b, StandardCharsets.UTF_8).strip().equals(ZERO_GID)) {
                        continue;
                    }
                    String i = SysfsTree.name(gid);
                    out.put(p + "/gids/" + i, b);
                    copy(SysfsTree.gidType(port, i), p + "/gid_attrs/types/" + i, out);
                    copy(SysfsTree.gidNdev(port, i), p + "/gid_attrs/ndevs/" + i, out);
                }
                for (Path pkey : SysfsTree.list(SysfsTree.pkeys(port))) {
                    copy(pkey, p + "/pkeys/" + SysfsTree.name(pkey), out);
                }
            }
        }
        for (Path nd : SysfsTree.list(from.net())) {
            byte[] type = SysfsTree.bytes(nd.resolve("type"));
            String target = SysfsTree.target(SysfsTree.deviceLink(nd));
            boolean ipoib = type != null && new String(type, StandardCharsets.UTF_8).strip().equals("32");
            if (!ipoib && (target == null || !devices.contains(SysfsTree.lastComponent(target)))) {
                continue; // only the netdevs of RDMA devices
            }
            String n = SysfsLayout.SNAPSHOT_NET + "/" + SysfsTree.name(nd);
            for (String f : NET_FILES) {
                copy(nd.resolve(f), n + "/" + f, out);
            }
            if (target != null) {
                out.put(n + "/device", target.getBytes(StandardCharsets.UTF_8));
            }
            if (Files.exists(nd.resolve("create_child"))) {
                out.put(n + "/create_child", new byte[0]);
            }
        }
        copy(from.netnsMode(), SysfsLayout.SNAPSHOT_NETNS_MODE, out);
        return out;
    }

    private static void copy(Path from, String to, Map<String, byte[]> out) {
        byte[] b = SysfsTree.bytes(from);
        if (b != null) {
            out.put(to, b);
        }
    }
}
