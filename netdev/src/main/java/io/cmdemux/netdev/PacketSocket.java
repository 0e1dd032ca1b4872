package io.cmdemux.netdev;

import java.io.IOException;
import jnr.ffi.Pointer;
import jnr.ffi.byref.IntByReference;

/**
 * An AF_PACKET socket bound to one interface: sees every frame the interface receives (before
 * tc and netfilter ingress, so before an nftables netdev rule can drop them), and injects
 * frames onto the wire. Outgoing frames, including our own, are not delivered back.
 */
public final class PacketSocket implements AutoCloseable {
    private static final int SOCKADDR_LL_SIZE = 20;
    private static final int MSGHDR_SIZE = 56;
    /** struct mmsghdr: a msghdr and the received length, padded to 8. */
    private static final int MMSGHDR_SIZE = 64;
    private static final int IOVEC_SIZE = 16;
    private static final int CMSG_SPACE = 64;
    private static final int TP_STATUS_VLAN_VALID = 0x10;
    private static final int TP_STATUS_VLAN_TPID_VALID = 0x40;
    private static final int PACKET_OUTGOING = 4;
    private static final int MAX_FRAME = 65536;

    private final int fd;
    private final int ifindex;
    private final Pointer sendBuf;
    private Batch single; // receive()'s own batch of one, made on first use
    private volatile boolean closed;

    /** A received frame; a VLAN tag that the driver had stripped is put back in the bytes. */
    public record Frame(byte[] bytes, int packetType, long receivedNanos) {}

    /** Frames the kernel counted for this socket since the last call: all that passed the filter, and those dropped (tp_drops). */
    public record Statistics(long packets, long drops) {}

    /**
     * Room for up to {@code capacity} frames taken by one recvmmsg(2): a receive buffer, a
     * sockaddr_ll and a control buffer each. Native memory, reused for every call; one thread's.
     */
    public static final class Batch {
        private final int capacity;
        private final Pointer vec;
        private final Pointer buffers;
        private final Pointer names;
        private final Pointer controls;
        private final byte[][] frames;
        private final int[] packetTypes;
        private int size;
        private long receivedNanos;

        public Batch(int capacity) {
            if (capacity < 1 || capacity > 1024) {
                throw new IllegalArgumentException("a batch holds 1 to 1024 frames, not " + capacity);
            }
            this.capacity = capacity;
            this.vec = Native.allocate(capacity * (MMSGHDR_SIZE + IOVEC_SIZE));
            this.buffers = Native.allocateUncleared(capacity * MAX_FRAME);
            this.names = Native.allocate(capacity * SOCKADDR_LL_SIZE);
            this.controls = Native.allocate(capacity * CMSG_SPACE);
            this.frames = new byte[capacity][];
            this.packetTypes = new int[capacity];
            Pointer iovs = vec.slice((long) capacity * MMSGHDR_SIZE);
            for (int i = 0; i < capacity; i++) {
                iovs.putAddress((long) i * IOVEC_SIZE, buffers.address() + (long) i * MAX_FRAME);
                iovs.putLong((long) i * IOVEC_SIZE + 8, MAX_FRAME);
            }
        }

        public int capacity() {
            return capacity;
        }

        /** How many frames the last receive took. */
        public int size() {
            return size;
        }

        /** Frame {@code i} of the last receive, VLAN tag re-inserted; a new array the caller may keep. */
        public byte[] frame(int i) {
            return frames[java.util.Objects.checkIndex(i, size)];
        }

        public int packetType(int i) {
            return packetTypes[java.util.Objects.checkIndex(i, size)];
        }

        /** When the last receive returned; every frame of a batch shares it. */
        public long receivedNanos() {
            return receivedNanos;
        }

        /** Resets every msghdr: the kernel overwrote the name and control lengths last time. */
        private void prepare() {
            long iovs = vec.address() + (long) capacity * MMSGHDR_SIZE;
            for (int i = 0; i < capacity; i++) {
                long m = (long) i * MMSGHDR_SIZE;
                vec.putAddress(m, names.address() + (long) i * SOCKADDR_LL_SIZE);
                vec.putInt(m + 8, SOCKADDR_LL_SIZE);
                vec.putAddress(m + 16, iovs + (long) i * IOVEC_SIZE);
                vec.putLong(m + 24, 1);
                vec.putAddress(m + 32, controls.address() + (long) i * CMSG_SPACE);
                vec.putLong(m + 40, CMSG_SPACE);
                vec.putInt(m + 48, 0);
                vec.putInt(m + 56, 0);
            }
        }

        /** Copies the {@code n} received messages out, dropping our own outgoing ones; returns how many are kept. */
        private int take(int n, long now) {
            int kept = 0;
            for (int i = 0; i < n; i++) {
                long m = (long) i * MMSGHDR_SIZE;
                int pkttype = Byte.toUnsignedInt(names.getByte((long) i * SOCKADDR_LL_SIZE + 10));
                if (pkttype == PACKET_OUTGOING) {
                    continue; // kernels before 4.20 ignore PACKET_IGNORE_OUTGOING
                }
                int len = (int) Math.min(Integer.toUnsignedLong(vec.getInt(m + 56)), MAX_FRAME);
                frames[kept] = copyOut(buffers, (long) i * MAX_FRAME, len, controls, (long) i * CMSG_SPACE, vec.getLong(m + 40));
                packetTypes[kept] = pkttype;
                kept++;
            }
            java.util.Arrays.fill(frames, kept, capacity, null);
            size = kept;
            receivedNanos = now;
            return kept;
        }
    }

    /**
     * Frames queued to leave together by one sendmmsg(2): packed into one native buffer, each with
     * its msghdr and iovec. Reused for every call; one thread's.
     */
    public static final class SendBatch {
        private final int capacity;
        private final int bufferBytes;
        private final Pointer vec;
        private final Pointer buffer;
        private int size;
        private int used;

        /** Room for {@code capacity} frames of {@code bufferBytes} in all. */
        public SendBatch(int capacity, int bufferBytes) {
            if (capacity < 1 || capacity > 1024 || bufferBytes < 64) {
                throw new IllegalArgumentException("a send batch holds 1 to 1024 frames in at least 64 bytes, not " + capacity + " in " + bufferBytes);
            }
            this.capacity = capacity;
            this.bufferBytes = bufferBytes;
            this.vec = Native.allocate(capacity * (MMSGHDR_SIZE + IOVEC_SIZE));
            this.buffer = Native.allocateUncleared(bufferBytes);
        }

        /** Queues a copy of {@code frame}; false when it does not fit (send the batch, then add it again). */
        public boolean add(byte[] frame) {
            if (size == capacity || used + frame.length > bufferBytes) {
                return false;
            }
            buffer.put(used, frame, 0, frame.length);
            long m = (long) size * MMSGHDR_SIZE;
            long iov = (long) capacity * MMSGHDR_SIZE + (long) size * IOVEC_SIZE;
            vec.putAddress(iov, buffer.address() + used);
            vec.putLong(iov + 8, frame.length);
            vec.putAddress(m, 0); // msg_name: the socket is bound to its interface
            vec.putInt(m + 8, 0);
            vec.putAddress(m + 16, vec.address() + iov);
            vec.putLong(m + 24, 1);
            vec.putAddress(m + 32, 0);
            vec.putLong(m + 40, 0);
            vec.putInt(m + 48, 0);
            vec.putInt(m + 56, 0);
            used += frame.length;
            size++;
            return true;
        }

        /** How many frames are queued. */
        public int size() {
            return size;
        }

        private void clear() {
            size = 0;
            used = 0;
        }
    }

    private PacketSocket(int fd, int ifindex) {
        this.fd = fd;
        this.ifindex = ifindex;
        this.sendBuf = Native.allocateUncleared(MAX_FRAME);
    }

    /**
     * Opens a socket in the calling thread's namespace, bound to {@code ifindex}, with an optional
     * classic BPF filter attached before the bind so that no unfiltered frame slips in.
     */
    public static PacketSocket open(int ifindex, int[][] filter, int receiveTimeoutMillis) throws NativeException {
        return open(ifindex, filter, receiveTimeoutMillis, 0);
    }

    /**
     * As {@link #open(int, int[][], int)}, with a receive buffer of {@code receiveBufferBytes} (0 keeps
     * the default, rmem_default): what the kernel holds for us while the reader is busy or descheduled,
     * beyond which it drops and counts tp_drops.
     */
    public static PacketSocket open(int ifindex, int[][] filter, int receiveTimeoutMillis, int receiveBufferBytes) throws NativeException {
        // Protocol 0: the socket takes no frames until bind() names ETH_P_ALL and the interface, by which
        // time the filter is on. Opened with ETH_P_ALL it would queue, unfiltered, whatever any interface
        // received in between (packet(7)).
        int fd = Native.check(Native.LIBC.socket(Native.AF_PACKET, Native.SOCK_RAW | Native.SOCK_CLOEXEC, 0), "socket(AF_PACKET)");
        try {
            if (filter != null) {
                attach(fd, filter);
            }
            Native.setInt(fd, Native.SOL_PACKET, Native.PACKET_AUXDATA, 1, false, "setsockopt(PACKET_AUXDATA)");
            // Without this the tap would read back every REJ we inject on the same interface (kernel >= 4.20).
            Native.setInt(fd, Native.SOL_PACKET, Native.PACKET_IGNORE_OUTGOING, 1, false, "setsockopt(PACKET_IGNORE_OUTGOING)");
            if (receiveTimeoutMillis > 0) {
                Native.receiveTimeout(fd, receiveTimeoutMillis);
            }
            if (receiveBufferBytes > 0) {
                Native.receiveBuffer(fd, receiveBufferBytes);
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

    private static int htons(int v) {
        return Short.toUnsignedInt(Short.reverseBytes((short) v));
    }

    public int ifindex() {
        return ifindex;
    }

    /** The next frame, or null when the receive timeout passes first. */
    public Frame receive() throws IOException {
        Batch b = single;
        if (b == null) {
            b = single = new Batch(1);
        }
        if (receive(b) == 0) {
            return null;
        }
        return new Frame(b.frame(0), b.packetType(0), b.receivedNanos());
    }

    /**
     * Fills {@code batch} with one recvmmsg(2): waits for the first frame up to the receive timeout,
     * then takes whatever else is already queued, up to the batch's capacity, without waiting
     * (MSG_WAITFORONE). recvmmsg's own timeout argument is not used: it is only checked after a
     * datagram arrives (see BUGS in recvmmsg(2)).
     *
     * @return how many frames the batch now holds; 0 when the timeout passed first
     */
    public int receive(Batch batch) throws IOException {
        while (true) {
            if (closed) {
                throw new IOException("packet socket is closed");
            }
            batch.prepare();
            int n = Native.LIBC.recvmmsg(fd, batch.vec, batch.capacity, Native.MSG_WAITFORONE, null);
            long now = System.nanoTime();
            if (n < 0) {
                int errno = Native.errno();
                if (errno == Native.EINTR) {
                    continue;
                }
                if (errno == Native.EAGAIN) {
                    batch.take(0, now);
                    return 0;
                }
                throw Native.error("recvmmsg(AF_PACKET)");
            }
            if (batch.take(n, now) > 0) {
                return batch.size();
            }
            // only our own outgoing frames: wait again
        }
    }

    /**
     * The frame at {@code buf + at}, {@code len} bytes, with the VLAN tag from its PACKET_AUXDATA
     * control message (the driver strips it) put back after the MAC addresses.
     */
    private static byte[] copyOut(Pointer buf, long at, int len, Pointer control, long controlAt, long controlLength) {
        int vlanTci = -1;
        int vlanTpid = 0x8100;
        long off = 0;
        while (off + 16 <= controlLength) {
            long cl = control.getLong(controlAt + off);
            int level = control.getInt(controlAt + off + 8);
            int type = control.getInt(controlAt + off + 12);
            if (cl < 16) {
                break;
            }
            if (level == Native.SOL_PACKET && type == Native.PACKET_AUXDATA && cl >= 16 + 20) {
                // struct tpacket_auxdata: tp_status, tp_len, tp_snaplen, tp_mac, tp_net, tp_vlan_tci, tp_vlan_tpid
                int status = control.getInt(controlAt + off + 16);
                if ((status & TP_STATUS_VLAN_VALID) != 0) {
                    vlanTci = Short.toUnsignedInt(control.getShort(controlAt + off + 16 + 16));
                    if ((status & TP_STATUS_VLAN_TPID_VALID) != 0) {
                        vlanTpid = Short.toUnsignedInt(control.getShort(controlAt + off + 16 + 18));
                    }
                }
            }
            off += (cl + 7) & ~7L;
        }
        byte[] frame;
        if (vlanTci >= 0 && len >= 12) {
            frame = new byte[len + 4];
            buf.get(at, frame, 0, 12);
            frame[12] = (byte) (vlanTpid >> 8);
            frame[13] = (byte) vlanTpid;
            frame[14] = (byte) (vlanTci >> 8);
            frame[15] = (byte) vlanTci;
            buf.get(at + 12, frame, 16, len - 12);
        } else {
            frame = new byte[len];
            buf.get(at, frame, 0, len);
        }
        return frame;
    }

    /**
     * PACKET_STATISTICS: frames that passed the filter and frames dropped because the receive
     * buffer was full, since the previous call (the kernel resets them on every read).
     */
    public Statistics statistics() throws IOException {
        if (closed) {
            throw new IOException("packet socket is closed");
        }
        Pointer stats = Native.allocate(8); // struct tpacket_stats { unsigned int tp_packets, tp_drops; }
        IntByReference len = new IntByReference(8);
        Native.check(Native.LIBC.getsockopt(fd, Native.SOL_PACKET, Native.PACKET_STATISTICS, stats, len), "getsockopt(PACKET_STATISTICS)");
        return new Statistics(Integer.toUnsignedLong(stats.getInt(0)), Integer.toUnsignedLong(stats.getInt(4)));
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

    /**
     * Puts every frame queued in {@code batch} on the wire, in order, with as few sendmmsg(2) calls
     * as the kernel allows, and empties the batch whatever happens.
     *
     * @throws IOException when the kernel refuses a frame; the frames after it are not sent
     */
    public void send(SendBatch batch) throws IOException {
        try {
            if (closed) {
                throw new IOException("packet socket is closed");
            }
            int sent = 0;
            while (sent < batch.size) {
                int n = Native.LIBC.sendmmsg(fd, batch.vec.slice((long) sent * MMSGHDR_SIZE), batch.size - sent, 0);
                if (n < 0) {
                    if (Native.errno() == Native.EINTR) {
                        continue;
                    }
                    throw Native.error("sendmmsg(AF_PACKET), " + (batch.size - sent) + " of " + batch.size + " frames unsent");
                }
                sent += n;
            }
        } finally {
            batch.clear();
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
