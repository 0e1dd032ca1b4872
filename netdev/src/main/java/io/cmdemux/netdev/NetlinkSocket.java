package io.cmdemux.netdev;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A netlink socket. It belongs to the network namespace of the thread that opened it, for its whole
 * life, and any thread may use it afterwards (one at a time).
 */
public final class NetlinkSocket implements AutoCloseable {
    public static final int NETLINK_ROUTE = 0;
    public static final int NETLINK_RDMA = 20;

    // <linux/netlink.h> socket options at SOL_NETLINK
    private static final int NETLINK_ADD_MEMBERSHIP = 1;
    private static final int NETLINK_LISTEN_ALL_NSID = 8;
    private static final int NETLINK_EXT_ACK = 11;
    private static final int NETLINK_GET_STRICT_CHK = 12;

    private static final int CMSG_SPACE = 64;

    private final int fd;
    private final int protocol;
    private final int portId;
    private final int recvCapacity;
    private final Native.ReceiveVector received;
    private final Native.SendBuffer sendBuffer;
    private volatile boolean closed;
    private boolean timeoutSet;

    private NetlinkSocket(int fd, int protocol, int portId, int recvCapacity) {
        this.fd = fd;
        this.protocol = protocol;
        this.portId = portId;
        this.recvCapacity = recvCapacity;
        this.received = new Native.ReceiveVector(1, recvCapacity, Native.SOCKADDR_NL_SIZE, CMSG_SPACE);
        this.sendBuffer = Native.SendBuffer.toNetlinkKernel(8 * 1024);
    }

    /**
     * Opens and binds a socket in the calling thread's namespace.
     *
     * @param groups the legacy 32-bit group mask to bind; further groups via {@link #addMembership}
     */
    public static NetlinkSocket open(int protocol, int groups) throws NativeException {
        int fd = Native.socket(Native.AF_NETLINK, Native.SOCK_RAW, protocol, "socket(AF_NETLINK, " + protocol + ")");
        try {
            int portId = Native.bindNetlink(fd, groups);
            // The kernel sizes dump skbs at 32 KiB at most (netlink_dump); MSG_TRUNC still catches anything larger.
            NetlinkSocket s = new NetlinkSocket(fd, protocol, portId, 64 * 1024);
            // Extended acks make the kernel's error strings reach our exceptions; best effort on old kernels.
            s.setIntOption(Native.SOL_NETLINK, NETLINK_EXT_ACK, 1, true);
            return s;
        } catch (NativeException e) {
            Native.close(fd);
            throw e;
        }
    }

    public int protocol() {
        return protocol;
    }

    /** The port id the kernel gave this socket; replies to our requests carry it. */
    public int portId() {
        return portId;
    }

    public void addMembership(int group) throws NativeException {
        setIntOption(Native.SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, group, false);
    }

    /** Deliver notifications from every namespace that has an nsid here, tagged with that nsid. */
    public void listenAllNsid() throws NativeException {
        setIntOption(Native.SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, 1, false);
    }

    /**
     * Strict dump requests: the kernel then honours filters such as NETNSA_TARGET_NSID, which it
     * silently ignores otherwise (net_namespace.c rtnl_net_dumpid parses them only under strict_check).
     */
    public void strictCheck() throws NativeException {
        setIntOption(Native.SOL_NETLINK, NETLINK_GET_STRICT_CHK, 1, false);
    }

    /**
     * Makes {@link #receive()} return null after this long without a datagram, so that a reader
     * thread can notice it should stop (closing a socket does not wake a blocked recvmsg).
     */
    public void receiveTimeout(int millis) throws NativeException {
        Native.receiveTimeout(fd, millis);
        timeoutSet = true;
    }

    /** A large receive buffer keeps bursts of notifications from overflowing into ENOBUFS. */
    public void receiveBuffer(int bytes) throws NativeException {
        Native.receiveBuffer(fd, bytes);
    }

    private boolean setIntOption(int level, int name, int value, boolean bestEffort) throws NativeException {
        return Native.setInt(fd, level, name, value, bestEffort, "setsockopt(" + level + ", " + name + ")");
    }

    /** Sends one or more complete netlink messages to the kernel. */
    public void send(ByteBuffer message) throws IOException {
        ensureOpen();
        int len = message.remaining();
        if (len > sendBuffer.capacity()) {
            throw new IOException("netlink request of " + len + " bytes exceeds " + sendBuffer.capacity());
        }
        byte[] bytes = new byte[len];
        message.duplicate().get(bytes);
        sendBuffer.send(fd, bytes, len, "sendto(AF_NETLINK)");
    }

    /**
     * Blocks for one datagram (or until the {@link #receiveTimeout receive timeout}, then null). The
     * returned buffer is a fresh native-order heap copy that the caller owns.
     *
     * @throws NativeException with errno ENOBUFS when notifications were lost; the caller must resync
     */
    public Datagram receive() throws IOException {
        return receive(0);
    }

    /**
     * Waits up to {@code timeoutMillis} (0: not at all) until a datagram or an error is queued, and takes
     * nothing: whether the next {@link #poll()} has something to return. Safe beside a thread that receives.
     */
    public boolean awaitReadable(int timeoutMillis) throws IOException {
        ensureOpen();
        return Native.awaitReadable(fd, timeoutMillis);
    }

    /** Like {@link #receive()}, but returns null at once when nothing is queued. */
    public Datagram poll() throws IOException {
        return receive(Native.MSG_DONTWAIT);
    }

    private Datagram receive(int flags) throws IOException {
        ensureOpen();
        int n = Native.receiveMessage(fd, received, flags | Native.MSG_TRUNC, "recvmsg(AF_NETLINK)");
        if (n == Native.NOTHING_QUEUED) {
            if ((flags & Native.MSG_DONTWAIT) != 0 || timeoutSet) {
                return null;
            }
            throw Native.error("recvmsg(AF_NETLINK)", Native.EAGAIN);
        }
        if (n > recvCapacity) {
            throw new IOException("netlink datagram of " + n + " bytes truncated to " + recvCapacity);
        }
        int senderPort = received.nameInt(0, Native.NL_PID);
        int at = received.findControl(0, Native.SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, 4);
        int nsid = at < 0 ? Datagram.NO_NSID : received.controlInt(0, at);
        byte[] copy = new byte[n];
        received.copy(0, 0, copy, 0, n);
        return new Datagram(ByteBuffer.wrap(copy).order(ByteOrder.nativeOrder()), senderPort, nsid);
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("netlink socket is closed");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Native.close(fd);
        }
    }

    /**
     * One received datagram.
     *
     * @param nsid the nsid the kernel tagged a notification with, or {@link #NO_NSID} for our own namespace
     */
    public record Datagram(ByteBuffer bytes, int senderPort, int nsid) {
        public static final int NO_NSID = Integer.MIN_VALUE;
    }
}
