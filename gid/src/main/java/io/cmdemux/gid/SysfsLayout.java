package io.cmdemux.gid;

import java.nio.file.Path;

/**
 * Where the sysfs files that describe RDMA devices are. The live host, a copy of its /sys (a
 * fixture tree, a chroot), or a snapshot file's entries, all read the same way.
 *
 * <pre>
 * live / fixture tree          snapshot zip (SnapshotFile's extra entries)
 * class/infiniband/DEV/...     sysfs/DEV/...                  node_guid, ports/N/{link_layer,state,
 *                                                             gids/I,gid_attrs/{types,ndevs}/I,pkeys/I}
 * class/net/NDEV/...           sysfs-net/NDEV/...             type, address, dev_port, dev_id, pkey,
 *                                                             device, create_child (IPoIB and RoCE netdevs)
 * module/ib_core/parameters/   sysfs-ib_core/netns_mode       Y (shared) or N (exclusive)
 *   netns_mode
 * </pre>
 * A {@code device} entry is a symlink in /sys; where symlinks cannot be stored (zip, Maven
 * resources) it is a regular file holding the link's target.
 *
 * @param net the net class of the namespace whose /sys this is: the host's only
 */
public record SysfsLayout(Path infiniband, Path net, Path netnsMode) {
    public static final String SNAPSHOT_INFINIBAND = "sysfs";
    public static final String SNAPSHOT_NET = "sysfs-net";
    public static final String SNAPSHOT_NETNS_MODE = "sysfs-ib_core/netns_mode";
    public static final Path LIVE_ROOT = Path.of("/sys");

    /** A /sys tree rooted at {@code sysRoot} ("/sys" on the live host). */
    public static SysfsLayout live(Path sysRoot) {
        return new SysfsLayout(sysRoot.resolve("class/infiniband"), sysRoot.resolve("class/net"),
                sysRoot.resolve("module/ib_core/parameters/netns_mode"));
    }

    /** A snapshot's entries under its root (SnapshotFile.read(...).root()). */
    public static SysfsLayout snapshot(Path root) {
        return new SysfsLayout(
                root.resolve(SNAPSHOT_INFINIBAND), root.resolve(SNAPSHOT_NET), root.resolve(SNAPSHOT_NETNS_MODE));
    }
}
