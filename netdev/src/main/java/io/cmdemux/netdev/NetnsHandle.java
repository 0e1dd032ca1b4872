package io.cmdemux.netdev;

/**
 * An open network namespace file (/run/netns/NAME or /proc/PID/ns/net). Holding it keeps the
 * namespace alive; {@link #enter()} moves the calling thread into it.
 */
public final class NetnsHandle implements AutoCloseable {
    private final int fd;
    private final String path;
    private final long dev;
    private final long ino;
    private volatile boolean closed;

    private NetnsHandle(int fd, String path, long dev, long ino) {
        this.fd = fd;
        this.path = path;
        this.dev = dev;
        this.ino = ino;
    }

    public static NetnsHandle open(String path) throws NativeException {
        int fd = Native.openNamespace(path);
        try {
            long[] id = Native.devIno(fd);
            return new NetnsHandle(fd, path, id[0], id[1]);
        } catch (NativeException e) {
            Native.close(fd);
            throw e;
        }
    }

    public String path() {
        return path;
    }

    /** st_dev of the namespace file; with {@link #ino()} the namespace's global identity. */
    public long dev() {
        return dev;
    }

    public long ino() {
        return ino;
    }

    /**
     * Moves the calling thread into this namespace. Only a thread that owns its namespace for the
     * duration may call this (the namespaces module's executor); never a pooled or virtual thread.
     */
    public void enter() throws NativeException {
        if (closed) {
            throw new NativeException("setns(" + path + ")", 9, "handle closed");
        }
        Native.setns(fd);
    }

    /** The descriptor, for NETNSA_FD in requests built inside this package. */
    int fd() {
        return fd;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Native.close(fd);
        }
    }

    @Override
    public String toString() {
        return path + " (" + dev + ":" + ino + ")";
    }
}
