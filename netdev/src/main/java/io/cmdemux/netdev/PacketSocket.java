package io.cmdemux.netdev;

import java.io.IOException;
import jnr.ffi.Pointer;

/**
 * An AF_PACKET socket bound to one interface: sees every frame the interface receives (before
 * tc and netfilter ingress, so before an nftables netdev rule can drop them), and injects
 * frames onto the wire. Outgoing frames, including our own, are not delivered back.
 */
public final class PacketSocket implements AutoCloseable {
    private static final int SOCKADDR_LL_SIZE = 20;
    private static final int MSGHDR_SIZE = 56;
    private static final int IOVEC_SIZE = 16;
    private static final int CMSG_SPACE = 64;
    private static final int TP_STATUS_VLAN_VALID = 0x10;
    private static final int TP_STATUS_VLAN_TPID_VALID = 0x40;
    private static final int PACKET_OUTGOING = 4;
    private static final int MAX_FRAME = 65536;

    private final int fd;
    private final int ifindex;
    private final Pointer recvBuf;
    private final Pointer msghdr;
    private final Pointer sendBuf;
    private volatile boolean closed;

    /** A received frame; a VLAN tag that the driver had stripped is put back in the bytes. */
    public record Frame(byte[] bytes, int packetType, long receivedNanos) {}

    private PacketSocket(int fd, int ifindex) {
        this.fd = fd;
        this.ifindex = ifindex;
        this.recvBuf = Native.allocateUncleared(MAX_FRAME);
        this.sendBuf = Native.allocateUncleared(MAX_FRAME);
        this.msghdr = Native.allocate(MSGHDR_SIZE + IOVEC_SIZE + SOCKADDR_LL_SIZE + 4 + CMSG_SPACE);
    }

    /**
     * Opens a socket in the calling thread's namespace, bound to {@code ifindex}, with an optional
     * classic BPF filter attached before the bind so that no unfiltered frame slips in.
     */
    public static PacketSocket open(int ifindex, int[][] filter, int receiveTimeoutMillis) throws NativeException {
        int fd = Native.check(Native.LIBC.socket(Native.AF_PACKET, Native.SOCK_RAW | Native.SOCK_CLOEXEC, htons(Native.ETH_P_ALL)),
                "socket(AF_PACKET)");
        try {
            if (filter != null) {
                attach(fd, filter);
            }
            setInt(fd, Native.SOL_PACKET, Native.PACKET_AUXDATA, 1, "setsockopt(PACKET_AUXDATA)");
            // Without this the tap would read back every REJ we inject on the same interface (kernel >= 4.20).
            setInt(fd, Native.SOL_PACKET, Native.PACKET_IGNORE_OUTGOING, 1, "setsockopt(PACKET_IGNORE_OUTGOING)");
            if (receiveTimeoutMillis > 0) {
                Pointer tv = Native.allocate(16);
                tv.putLong(0, receiveTimeoutMillis / 1000);
                tv.putLong(8, (receiveTimeoutMillis % 1000) * 1000L);
                Native.check(Native.LIBC.setsockopt(fd, Native.SOL_SOCKET, Native.SO_RCVTIMEO, tv, 16), "setsockopt(SO_RCVTIMEO)");
            }
            Pointer sll = Native.allocate(SOCKADDR_LL_SIZE);
            sll.putShort(0, (short) Native.AF_PACKET);
            sll.putShort(2, (short) htons(Native.ETH_P_ALL));
            sll.putInt(4, ifindex);
            Native.check(Native.LIBC.bind(fd, sll, SOCKADDR_LL_SIZE), "bind(AF_PACKET, ifindex " + ifindex + ")");
            return new PacketSocket(fd, ifindex);
        } catch (NativeException e) {
            Native.close(fd);
            throw e;
        }
    }

    private static void attach(int fd, int[][] filter) throws NativeException {
        Pointer prog = Native.allocate(filter.length * 8);
        for (int i = 0; i < filter.length; i++) {
            prog.putShort(i * 8L, (short) filter[i][0]);
            prog.putByte(i * 8L + 2, (byte) filter[i][1]);
            prog.putByte(i * 8L + 3, (byte) filter[i][2]);
            prog.putInt(i * 8L + 4, filter[i][3]);
        }
        Pointer fprog = Native.allocate(16); // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
        fprog.putShort(0, (short) filter.length);
        fprog.putAddress(8, prog.address());
        Native.check(Native.LIBC.setsockopt(fd, Native.SOL_SOCKET, Native.SO_ATTACH_FILTER, fprog, 16), "setsockopt(SO_ATTACH_FILTER)");
    }

    private static void setInt(int fd, int level, int name, int value, String call) throws NativeException {
        Pointer v = Native.allocate(4);
        v.putInt(0, value);
        Native.check(Native.LIBC.setsockopt(fd, level, name, v, 4), call);
    }

    private static int htons(int v) {
        return Short.toUnsignedInt(Short.reverseBytes((short) v));
    }

    public int ifindex() {
        return ifindex;
    }

    /** The next frame, or null when the receive timeout passes first. */
    public Frame receive() throws IOException {
        if (closed) {
            throw new IOException("packet socket is closed");
        }
        Pointer iov = msghdr.slice(MSGHDR_SIZE);
        Pointer name = msghdr.slice(MSGHDR_SIZE + IOVEC_SIZE);
        Pointer control = msghdr.slice(MSGHDR_SIZE + IOVEC_SIZE + SOCKADDR_LL_SIZE + 4);
        while (true) {
            iov.putAddress(0, recvBuf.address());
            iov.putLong(8, MAX_FRAME);
            msghdr.putAddress(0, name.address());
            msghdr.putInt(8, SOCKADDR_LL_SIZE);
            msghdr.putAddress(16, iov.address());
            msghdr.putLong(24, 1);
            msghdr.putAddress(32, control.address());
            msghdr.putLong(40, CMSG_SPACE);
            msghdr.putInt(48, 0);
            long n = Native.LIBC.recvmsg(fd, msghdr, 0);
            long now = System.nanoTime();
            if (n < 0) {
                int errno = Native.errno();
                if (errno == Native.EINTR) {
                    continue;
                }
                if (errno == Native.EAGAIN) {
                    return null;
                }
                throw Native.error("recvmsg(AF_PACKET)");
            }
            int pkttype = Byte.toUnsignedInt(name.getByte(10));
            if (pkttype == PACKET_OUTGOING) {
                continue; // kernels before 4.20 ignore PACKET_IGNORE_OUTGOING
            }
            int len = (int) Math.min(n, MAX_FRAME);
            int vlanTci = -1;
            int vlanTpid = 0x8100;
            long clen = msghdr.getLong(40);
            long off = 0;
            while (off + 16 <= clen) {
                long cl = control.getLong(off);
                int level = control.getInt(off + 8);
                int type = control.getInt(off + 12);
                if (cl < 16) {
                    break;
                }
                if (level == Native.SOL_PACKET && type == Native.PACKET_AUXDATA && cl >= 16 + 20) {
                    int status = control.getInt(off + 16);
                    if ((status & TP_STATUS_VLAN_VALID) != 0) {
                        vlanTci = Short.toUnsignedInt(control.getShort(off + 16 + 16));
                        if ((status & TP_STATUS_VLAN_TPID_VALID) != 0) {
                            vlanTpid = Short.toUnsignedInt(control.getShort(off + 16 + 18));
                        }
                    }
                }
                off += (cl + 7) & ~7L;
            }
            byte[] frame;
            if (vlanTci >= 0 && len >= 12) {
                frame = new byte[len + 4];
                recvBuf.get(0, frame, 0, 12);
                frame[12] = (byte) (vlanTpid >> 8);
                frame[13] = (byte) vlanTpid;
                frame[14] = (byte) (vlanTci >> 8);
                frame[15] = (byte) vlanTci;
                recvBuf.get(12, frame, 16, len - 12);
            } else {
                frame = new byte[len];
                recvBuf.get(0, frame, 0, len);
            }
            return new Frame(frame, pkttype, now);
        }
    }

    /** Puts one complete Ethernet frame on the wire of the bound interface. */
    public void send(byte[] frame) throws IOException {
        if (closed) {
            throw new IOException("packet socket is closed");
        }
        if (frame.length > MAX_FRAME) {
            throw new IOException("frame of " + frame.length + " bytes is too large");
        }
        synchronized (sendBuf) {
            sendBuf.put(0, frame, 0, frame.length);
            while (true) {
                long rc = Native.LIBC.sendto(fd, sendBuf, frame.length, 0, null, 0);
                if (rc >= 0) {
                    return;
                }
                if (Native.errno() != Native.EINTR) {
                    throw Native.error("sendto(AF_PACKET)");
                }
            }
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Native.close(fd);
        }
    }
}
