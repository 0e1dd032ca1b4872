package io.cmdemux.netdev;

import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * An AF_PACKET socket bound to one interface: sees every frame the interface receives (before
 * tc and netfilter ingress, so before an nftables netdev rule can drop them), and injects
 * frames onto the wire. Outgoing frames, including our own, are not delivered back.
 */
public final class PacketSocket implements AutoCloseable {
    private static final int CMSG_SPACE = 64;
    // struct tpacket_auxdata (<linux/if_packet.h>): tp_status, tp_len, tp_snaplen, tp_mac, tp_net,
    // tp_vlan_tci, tp_vlan_tpid
    private static final int AUXDATA_SIZE = 20;
    private static final int AUXDATA_VLAN_TCI = 16;
    private static final int AUXDATA_VLAN_TPID = 18;
    private static final int TP_STATUS_VLAN_VALID = 0x10;
    private static final int TP_STATUS_VLAN_TPID_VALID = 0x40;
    private static final int PACKET_OUTGOING = 4;
    private static final int MAX_FRAME = 65536;

    private final int fd;
    private final int ifindex;
    private final Native.SendBuffer sendBuffer;
    private Batch single; // receive()'s own batch of one, made on first use
    private volatile boolean closed;

    /** A received frame; a VLAN tag that the driver had stripped is put back in the bytes. */
    public record Frame(byte[] bytes, int packetType, long receivedNanos) {}

    /**
     * Frames the kernel counted for this socket since the last call: all that passed the filter, and those
     * dropped (tp_drops).
     */
    public record Statistics(long packets, long drops) {}

    /**
     * Room for up to {@code capacity} frames taken by one recvmmsg(2): a receive buffer, a
     * sockaddr_ll and a control buffer each. Native memory, reused for every call; one thread's.
     */
    public static final class Batch {
        private final int capacity;
        private final Native.ReceiveVector messages;
        private final byte[][] frames;
        private final int[] packetTypes;
        private int size;
        private long receivedNanos;

        public Batch(int capacity) {
            if (capacity < 1 || capacity > 1024) {
                throw new IllegalArgumentException("a batch holds 1 to 1024 frames, not " + capacity);
            }
            this.capacity = capacity;
            this.messages = new Native.ReceiveVector(capacity, MAX_FRAME, Native.SOCKADDR_LL_SIZE, CMSG_SPACE);
            this.frames = new byte[capacity][];
            this.packetTypes = new int[capacity];
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
            return frames[Objects.checkIndex(i, size)];
        }

        public int packetType(int i) {
            return packetTypes[Objects.checkIndex(i, size)];
        }

        /** When the last receive returned; every frame of a batch shares it. */
        public long receivedNanos() {
            return receivedNanos;
        }

        /**
         * Copies the {@code n} received messages out, dropping our own outgoing ones; returns how many are
         * kept.
         */
        private int take(int n, long now) {
            int kept = 0;
            for (int i = 0; i < n; i++) {
                int pkttype = messages.nameByte(i, Native.SLL_PKTTYPE);
                if (pkttype == PACKET_OUTGOING) {
                    continue; // kernels before 4.20 ignore PACKET_IGNORE_OUTGOING
                }
                frames[kept] = copyOut(messages, i, (int) Math.min(messages.length(i), MAX_FRAME));
                packetTypes[kept] = pkttype;
                kept++;
            }
            Arrays.fill(frames, kept, capacity, null);
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
        private final Native.SendVector messages;

        /** Room for {@code capacity} frames of {@code bufferBytes} in all. */
        public SendBatch(int capacity, int bufferBytes) {
            if (capacity < 1 || capacity > 1024 || bufferBytes < 64) {
                throw new IllegalArgumentException("a send batch holds 1 to 1024 frames in at least 64 bytes, not "
                        + capacity + " in " + bufferBytes);
            }
            this.messages = new Native.SendVector(capacity, bufferBytes);
        }

        /** Queues a copy of {@code frame}; false when it does not fit (send the batch, then add it again). */
        public boolean add(byte[] frame) {
            return messages.add(frame);
        }

        /** How many frames are queued. */
        public int size() {
            return messages.size();
        }
    }

    private PacketSocket(int fd, int ifindex) {
        this.fd = fd;
        this.ifindex = ifindex;
        this.sendBuffer = Native.SendBuffer.toBound(MAX_FRAME);
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
    public static PacketSocket open(int ifindex, int[][] filter, int receiveTimeoutMillis, int receiveBufferBytes)
            throws NativeException {
        // Protocol 0: the socket takes no frames until bind() names ETH_P_ALL and the interface, by which
        // time the filter is on. Opened with ETH_P_ALL it would queue, unfiltered, whatever any interface
        // received in between (packet(7)).
        int fd = Native.socket(Native.AF_PACKET, Native.SOCK_RAW, 0, "socket(AF_PACKET)");
        try {
            if (filter != null) {
                Native.attachFilter(fd, filter);
            }
            Native.setInt(fd, Native.SOL_PACKET, Native.PACKET_AUXDATA, 1, false, "setsockopt(PACKET_AUXDATA)");
            // Without this the tap would read back every REJ we inject on the same interface (kernel >= 4.20).
            Native.setInt(fd, Native.SOL_PACKET, Native.PACKET_IGNORE_OUTGOING, 1, false,
                    "setsockopt(PACKET_IGNORE_OUTGOING)");
            if (receiveTimeoutMillis > 0) {
                Native.receiveTimeout(fd, receiveTimeoutMillis);
            }
            if (receiveBufferBytes > 0) {
                Native.receiveBuffer(fd, receiveBufferBytes);
            }
            Native.bindPacket(fd, ifindex);
            return new PacketSocket(fd, ifindex);
        } catch (NativeException e) {
            Native.close(fd);
            throw e;
        }
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
     * (MSG_WAITFORONE).
     *
     * @return how many frames the batch now holds; 0 when the timeout passed first
     */
    public int receive(Batch batch) throws IOException {
        while (true) {
            if (closed) {
                throw new IOException("packet socket is closed");
            }
            int n = Native.receiveMessages(fd, batch.messages, Native.MSG_WAITFORONE, "recvmmsg(AF_PACKET)");
            long now = System.nanoTime();
            if (n == Native.NOTHING_QUEUED) {
                batch.take(0, now);
                return 0;
            }
            if (batch.take(n, now) > 0) {
                return batch.size();
            }
            // only our own outgoing frames: wait again
        }
    }

    /**
     * Message {@code i}'s frame, {@code len} bytes, with the VLAN tag from its PACKET_AUXDATA control
     * message (the driver strips it) put back after the MAC addresses.
     */
    private static byte[] copyOut(Native.ReceiveVector messages, int i, int len) {
        int vlanTci = -1;
        int vlanTpid = 0x8100;
        int aux = messages.findControl(i, Native.SOL_PACKET, Native.PACKET_AUXDATA, AUXDATA_SIZE);
        if (aux >= 0) {
            int status = messages.controlInt(i, aux);
            if ((status & TP_STATUS_VLAN_VALID) != 0) {
                vlanTci = messages.controlShort(i, aux + AUXDATA_VLAN_TCI);
                if ((status & TP_STATUS_VLAN_TPID_VALID) != 0) {
                    vlanTpid = messages.controlShort(i, aux + AUXDATA_VLAN_TPID);
                }
            }
        }
        byte[] frame;
        if (vlanTci >= 0 && len >= 12) {
            frame = new byte[len + 4];
            messages.copy(i, 0, frame, 0, 12);
            frame[12] = (byte) (vlanTpid >> 8);
            frame[13] = (byte) vlanTpid;
            frame[14] = (byte) (vlanTci >> 8);
            frame[15] = (byte) vlanTci;
            messages.copy(i, 12, frame, 16, len - 12);
        } else {
            frame = new byte[len];
            messages.copy(i, 0, frame, 0, len);
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
        // struct tpacket_stats { unsigned int tp_packets, tp_drops; }
        int[] stats = Native.getInts(fd, Native.SOL_PACKET, Native.PACKET_STATISTICS, 2,
                "getsockopt(PACKET_STATISTICS)");
        return new Statistics(Integer.toUnsignedLong(stats[0]), Integer.toUnsignedLong(stats[1]));
    }

    /** Puts one complete Ethernet frame on the wire of the bound interface. */
    public void send(byte[] frame) throws IOException {
        if (closed) {
            throw new IOException("packet socket is closed");
        }
        if (frame.length > MAX_FRAME) {
            throw new IOException("frame of " + frame.length + " bytes is too large");
        }
        synchronized (sendBuffer) {
            sendBuffer.send(fd, frame, frame.length, "sendto(AF_PACKET)");
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
            Native.sendAll(fd, batch.messages, "sendmmsg(AF_PACKET)");
        } finally {
            batch.messages.clear();
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
