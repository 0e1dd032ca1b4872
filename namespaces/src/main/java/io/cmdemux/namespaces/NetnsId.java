package io.cmdemux.namespaces;

/**
 * The global identity of a network namespace: st_dev and st_ino of its nsfs file, equal for
 * /run/netns/NAME and /proc/PID/ns/net of every process inside. All nsfs files share one st_dev,
 * so the inode alone names a namespace on one host; snapshot files store only the inode.
 */
public record NetnsId(long dev, long inode) implements Comparable<NetnsId> {
    @Override
    public int compareTo(NetnsId o) {
        int c = Long.compare(dev, o.dev);
        return c != 0 ? c : Long.compare(inode, o.inode);
    }

    @Override
    public String toString() {
        return Long.toString(inode);
    }
}
