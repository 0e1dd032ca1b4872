package io.cmdemux.netdev;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.annotations.SaveError;
import jnr.ffi.byref.IntByReference;

/**
 * The only door to libc. Every syscall the netdev module makes goes through here, and every failure
 * leaves as a {@link NativeException} that names the call and the errno. The C structs the calls take
 * (sockaddr_nl, sockaddr_ll, msghdr, mmsghdr, iovec, cmsghdr, sock_fprog) are laid out here too, so that
 * the sockets above see descriptors and offsets into their own formats, never a pointer.
 */
final class Native {
    /** jnr generates an implementation in its own class loader, so the interface itself must be public. */
    public interface LibC {
        @SaveError int socket(int domain, int type, int protocol);
        @SaveError int bind(int fd, @In Pointer addr, int addrlen);
        @SaveError int getsockname(int fd, @Out Pointer addr, IntByReference addrlen);
        @SaveError long sendto(int fd, @In Pointer buf, long len, int flags, @In Pointer addr, int addrlen);
        @SaveError long recvmsg(int fd, Pointer msghdr, int flags);
        @SaveError int recvmmsg(int fd, Pointer msgvec, int vlen, int flags, Pointer timeout);
        @SaveError int sendmmsg(int fd, Pointer msgvec, int vlen, int flags);
        @SaveError int setsockopt(int fd, int level, int optname, @In Pointer optval, int optlen);
        @SaveError int getsockopt(int fd, int level, int optname, @Out Pointer optval, IntByReference optlen);
        @SaveError int open(String path, int flags);
        @SaveError int close(int fd);
        @SaveError int setns(int fd, int nstype);
        @SaveError int fstat(int fd, @Out Pointer statbuf);
        @SaveError int poll(Pointer fds, long nfds, int timeout);
        String strerror(int errnum);
    }

    // <sys/socket.h>, <linux/netlink.h>, <linux/if_packet.h>, <fcntl.h>, <sched.h>
    static final int AF_NETLINK = 16;
    static final int AF_PACKET = 17;
    static final int SOL_PACKET = 263;
    static final int PACKET_AUXDATA = 8;
    static final int PACKET_IGNORE_OUTGOING = 23;
    static final int PACKET_STATISTICS = 6;
    static final int SO_ATTACH_FILTER = 26;
    static final int ETH_P_ALL = 0x0003;
    static final int SOCK_RAW = 3;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_RCVBUF = 8;
    static final int SO_RCVBUFFORCE = 33;
    static final int SO_RCVTIMEO = 20;
    static final int SOL_NETLINK = 270;
    static final int O_RDONLY = 0;
    static final int O_CLOEXEC = 0x80000;
    static final int CLONE_NEWNET = 0x40000000;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_TRUNC = 0x20;
    static final int MSG_WAITFORONE = 0x10000;
    static final int EINTR = 4;
    static final short POLLIN = 0x1;
    static final short POLLERR = 0x8;
    static final short POLLHUP = 0x10;
    static final short POLLNVAL = 0x20;
    static final int EBADF = 9;
    static final short POLLRDHUP = 0x2000;
    static final int EAGAIN = 11;
    static final int ENOBUFS = 105;

    /** struct sockaddr_nl { sa_family_t nl_family; unsigned short nl_pad; __u32 nl_pid; __u32 nl_groups; } */
    static final int SOCKADDR_NL_SIZE = 12;
    static final int NL_PID = 4;
    private static final int NL_GROUPS = 8;
    /** struct sockaddr_ll: family, protocol (BE), ifindex, hatype, pkttype, halen, addr[8]. */
    static final int SOCKADDR_LL_SIZE = 20;
    private static final int SLL_PROTOCOL = 2;
    private static final int SLL_IFINDEX = 4;
    static final int SLL_PKTTYPE = 10;

    // struct msghdr on LP64: msg_name, msg_namelen, msg_iov, msg_iovlen, msg_control, msg_controllen, msg_flags
    private static final int MSG_NAME = 0;
    private static final int MSG_NAMELEN = 8;
    private static final int MSG_IOV = 16;
    private static final int MSG_IOVLEN = 24;
    private static final int MSG_CONTROL = 32;
    private static final int MSG_CONTROLLEN = 40;
    private static final int MSG_FLAGS = 48;
    /** struct mmsghdr: a msghdr and the received length, padded to 8. */
    private static final int MMSGHDR_SIZE = 64;
    private static final int MMSG_LEN = 56;
    private static final int IOVEC_SIZE = 16;
    /** struct cmsghdr: size_t cmsg_len, int cmsg_level, int cmsg_type, then the data, aligned to 8. */
    private static final int CMSG_HDR = 16;

    /** What a receive returns when no datagram came before the receive timeout or at once. */
    static final int NOTHING_QUEUED = -1;

    private static final LibC LIBC = LibraryLoader.create(LibC.class).load("c");
    private static final Runtime RUNTIME = Runtime.getRuntime(LIBC);

    private Native() {}

    private static NativeException error(String call) {
        return error(call, RUNTIME.getLastError());
    }

    static NativeException error(String call, int errno) {
        return new NativeException(call, errno, LIBC.strerror(errno));
    }

    private static int check(int rc, String call) throws NativeException {
        if (rc < 0) {
            throw error(call);
        }
        return rc;
    }

    private static Pointer allocate(int size) {
        return Memory.allocateDirect(RUNTIME, size, true);
    }

    /** For buffers that are always written before they are read: skips zeroing them. */
    private static Pointer allocateUncleared(int size) {
        return Memory.allocateDirect(RUNTIME, size, false);
    }

    /** Always close-on-exec: a program the process starts (nft, dot) must not inherit its sockets. */
    static int socket(int domain, int type, int protocol, String call) throws NativeException {
        return check(LIBC.socket(domain, type | SOCK_CLOEXEC, protocol), call);
    }

    /** Binds a netlink socket to {@code groups} and returns the port id the kernel gave it. */
    static int bindNetlink(int fd, int groups) throws NativeException {
        Pointer addr = allocate(SOCKADDR_NL_SIZE);
        addr.putShort(0, (short) AF_NETLINK);
        addr.putInt(NL_GROUPS, groups);
        check(LIBC.bind(fd, addr, SOCKADDR_NL_SIZE), "bind(AF_NETLINK)");
        IntByReference len = new IntByReference(SOCKADDR_NL_SIZE);
        check(LIBC.getsockname(fd, addr, len), "getsockname(AF_NETLINK)");
        return addr.getInt(NL_PID);
    }

    /** Binds a packet socket to every protocol on one interface. */
    static void bindPacket(int fd, int ifindex) throws NativeException {
        Pointer sll = allocate(SOCKADDR_LL_SIZE);
        sll.putShort(0, (short) AF_PACKET);
        sll.putShort(SLL_PROTOCOL, Short.reverseBytes((short) ETH_P_ALL));
        sll.putInt(SLL_IFINDEX, ifindex);
        check(LIBC.bind(fd, sll, SOCKADDR_LL_SIZE), "bind(AF_PACKET, ifindex " + ifindex + ")");
    }

    /** SO_ATTACH_FILTER with a classic BPF program, one {code, jt, jf, k} row per instruction. */
    static void attachFilter(int fd, int[][] filter) throws NativeException {
        Pointer prog = allocate(filter.length * 8);
        for (int i = 0; i < filter.length; i++) {
            prog.putShort(i * 8L, (short) filter[i][0]);
            prog.putByte(i * 8L + 2, (byte) filter[i][1]);
            prog.putByte(i * 8L + 3, (byte) filter[i][2]);
            prog.putInt(i * 8L + 4, filter[i][3]);
        }
        Pointer fprog = allocate(16); // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
        fprog.putShort(0, (short) filter.length);
        fprog.putAddress(8, prog.address());
        check(LIBC.setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, fprog, 16), "setsockopt(SO_ATTACH_FILTER)");
    }

    /** setsockopt with an int value; false (errno kept) rather than an exception when {@code bestEffort}. */
    static boolean setInt(int fd, int level, int name, int value, boolean bestEffort, String call)
            throws NativeException {
        Pointer v = allocate(4);
        v.putInt(0, value);
        if (LIBC.setsockopt(fd, level, name, v, 4) < 0) {
            if (bestEffort) {
                return false;
            }
            throw error(call);
        }
        return true;
    }

    /** getsockopt of a struct of {@code count} ints. */
    static int[] getInts(int fd, int level, int name, int count, String call) throws NativeException {
        Pointer v = allocate(4 * count);
        IntByReference len = new IntByReference(4 * count);
        check(LIBC.getsockopt(fd, level, name, v, len), call);
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            out[i] = v.getInt(4L * i);
        }
        return out;
    }

    /**
     * poll(2) on one descriptor for input: whether it became readable within {@code timeoutMillis} (0: now), or
     * has an error for the next receive to report (POLLERR, as after ENOBUFS), without taking anything from it.
     */
    static boolean awaitReadable(int fd, int timeoutMillis) throws NativeException {
        return poll(fd, POLLIN, timeoutMillis) != 0;
    }

    /**
     * poll(2) at once on a stream socket for POLLRDHUP: whether its peer has shut down or closed its end. Data the
     * peer wrote before that may still be queued; the answer says nothing of it and takes nothing. POLLERR counts as
     * a hang-up: a peer that closed with our bytes unread leaves ECONNRESET. A descriptor that is not open is EBADF.
     */
    static boolean peerHungUp(int fd) throws NativeException {
        short revents = poll(fd, POLLRDHUP, 0);
        if ((revents & POLLNVAL) != 0) {
            throw error("poll", EBADF);
        }
        return (revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
    }

    /** poll(2) on one descriptor, again after EINTR: its revents, or 0 when nothing happened within the timeout. */
    private static short poll(int fd, short events, int timeoutMillis) throws NativeException {
        Pointer p = allocate(8); // struct pollfd { int fd; short events; short revents; }
        p.putInt(0, fd);
        p.putShort(4, events);
        while (true) {
            int n = LIBC.poll(p, 1, timeoutMillis);
            if (n >= 0) {
                return n == 0 ? 0 : p.getShort(6);
            }
            int errno = RUNTIME.getLastError();
            if (errno != EINTR) {
                throw error("poll", errno);
            }
        }
    }

    /**
     * SO_RCVTIMEO: a blocking receive returns EAGAIN after this long, so a reader thread can notice it
     * should stop.
     */
    static void receiveTimeout(int fd, int millis) throws NativeException {
        Pointer tv = allocate(16); // struct timeval { time_t tv_sec; suseconds_t tv_usec; }
        tv.putLong(0, millis / 1000);
        tv.putLong(8, (millis % 1000) * 1000L);
        check(LIBC.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, tv, 16), "setsockopt(SO_RCVTIMEO)");
    }

    /** SO_RCVBUFFORCE ignores rmem_max but needs CAP_NET_ADMIN; without it, the capped SO_RCVBUF. */
    static void receiveBuffer(int fd, int bytes) throws NativeException {
        if (!setInt(fd, SOL_SOCKET, SO_RCVBUFFORCE, bytes, true, "setsockopt(SO_RCVBUFFORCE)")) {
            setInt(fd, SOL_SOCKET, SO_RCVBUF, bytes, false, "setsockopt(SO_RCVBUF)");
        }
    }

    static int openNamespace(String path) throws NativeException {
        return check(LIBC.open(path, O_RDONLY | O_CLOEXEC), "open(" + path + ")");
    }

    static void setns(int fd) throws NativeException {
        check(LIBC.setns(fd, CLONE_NEWNET), "setns(CLONE_NEWNET)");
    }

    static void close(int fd) {
        // close(2) always releases the descriptor on Linux, even when it reports an error.
        LIBC.close(fd);
    }

    /** st_dev and st_ino of an open descriptor, the identity of a namespace file. */
    static long[] devIno(int fd) throws NativeException {
        Pointer stat = allocate(144); // sizeof(struct stat) on x86_64 and aarch64 is at most 144
        check(LIBC.fstat(fd, stat), "fstat");
        return new long[] {stat.getLong(0), stat.getLong(8)};
    }

    /**
     * recvmsg(2) into slot 0 of {@code v}, retried on EINTR.
     *
     * @return the datagram's length (its full length under MSG_TRUNC); {@link #NOTHING_QUEUED} on EAGAIN
     */
    static int receiveMessage(int fd, ReceiveVector v, int flags, String call) throws NativeException {
        return receive(fd, v, flags, call, false);
    }

    /**
     * recvmmsg(2) into every slot of {@code v}, retried on EINTR; each message's length is then
     * {@link ReceiveVector#length}. recvmmsg's own timeout argument is not used: it is only checked after
     * a datagram arrives (see BUGS in recvmmsg(2)).
     *
     * @return how many messages it took; {@link #NOTHING_QUEUED} on EAGAIN
     */
    static int receiveMessages(int fd, ReceiveVector v, int flags, String call) throws NativeException {
        return receive(fd, v, flags, call, true);
    }

    private static int receive(int fd, ReceiveVector v, int flags, String call, boolean many)
            throws NativeException {
        while (true) {
            v.reset();
            long n = many ? LIBC.recvmmsg(fd, v.vec, v.count, flags, null) : LIBC.recvmsg(fd, v.vec, flags);
            if (n >= 0) {
                return (int) n;
            }
            int errno = RUNTIME.getLastError();
            if (errno == EAGAIN) {
                return NOTHING_QUEUED;
            }
            if (errno != EINTR) {
                throw error(call, errno);
            }
        }
    }

    /**
     * Sends every message of {@code v}, in order, with as few sendmmsg(2) calls as the kernel takes;
     * retried on EINTR.
     *
     * @throws NativeException when the kernel refuses one; the call names how many were left unsent
     */
    static void sendAll(int fd, SendVector v, String call) throws NativeException {
        int sent = 0;
        while (sent < v.size) {
            Pointer from = sent == 0 ? v.vec : v.vec.slice((long) sent * MMSGHDR_SIZE);
            int n = LIBC.sendmmsg(fd, from, v.size - sent, 0);
            if (n >= 0) {
                sent += n;
                continue;
            }
            int errno = RUNTIME.getLastError();
            if (errno != EINTR) {
                throw error(call + ", " + (v.size - sent) + " of " + v.size + " frames unsent", errno);
            }
        }
    }

    /**
     * Room for {@code count} datagrams taken by one receive: a payload slot, a name and a control buffer
     * each, behind a vector of mmsghdr. Native memory, allocated once and reused for every call.
     */
    static final class ReceiveVector {
        private final int count;
        private final int slotBytes;
        private final int nameBytes;
        private final int controlBytes;
        private final Pointer vec;
        private final Pointer slots;
        private final Pointer names;
        private final Pointer controls;

        ReceiveVector(int count, int slotBytes, int nameBytes, int controlBytes) {
            this.count = count;
            this.slotBytes = slotBytes;
            this.nameBytes = nameBytes;
            this.controlBytes = controlBytes;
            this.vec = allocate(count * (MMSGHDR_SIZE + IOVEC_SIZE));
            this.slots = allocateUncleared(count * slotBytes);
            this.names = allocate(count * nameBytes);
            this.controls = allocate(count * controlBytes);
            long iovs = (long) count * MMSGHDR_SIZE;
            for (int i = 0; i < count; i++) {
                vec.putAddress(iovs + (long) i * IOVEC_SIZE, slots.address() + (long) i * slotBytes);
                vec.putLong(iovs + (long) i * IOVEC_SIZE + 8, slotBytes);
            }
        }

        /** Rewrites every header: the kernel overwrote the name and control lengths last time. */
        private void reset() {
            long iovs = vec.address() + (long) count * MMSGHDR_SIZE;
            for (int i = 0; i < count; i++) {
                long m = (long) i * MMSGHDR_SIZE;
                vec.putAddress(m + MSG_NAME, names.address() + (long) i * nameBytes);
                vec.putInt(m + MSG_NAMELEN, nameBytes);
                vec.putAddress(m + MSG_IOV, iovs + (long) i * IOVEC_SIZE);
                vec.putLong(m + MSG_IOVLEN, 1);
                vec.putAddress(m + MSG_CONTROL, controls.address() + (long) i * controlBytes);
                vec.putLong(m + MSG_CONTROLLEN, controlBytes);
                vec.putInt(m + MSG_FLAGS, 0);
                vec.putInt(m + MMSG_LEN, 0);
            }
        }

        /** The bytes recvmmsg put in message {@code i}'s slot (unsigned, as the kernel wrote it). */
        long length(int i) {
            return Integer.toUnsignedLong(vec.getInt((long) i * MMSGHDR_SIZE + MMSG_LEN));
        }

        int nameByte(int i, int at) {
            return Byte.toUnsignedInt(names.getByte((long) i * nameBytes + at));
        }

        int nameInt(int i, int at) {
            return names.getInt((long) i * nameBytes + at);
        }

        /**
         * Where the data of message {@code i}'s first control message of {@code level} and {@code type}
         * with at least {@code minData} bytes starts in its control buffer, or -1.
         */
        int findControl(int i, int level, int type, int minData) {
            long controlLength = vec.getLong((long) i * MMSGHDR_SIZE + MSG_CONTROLLEN);
            long base = (long) i * controlBytes;
            long off = 0;
            while (off + CMSG_HDR <= controlLength) {
                long len = controls.getLong(base + off);
                if (len < CMSG_HDR) {
                    break;
                }
                if (controls.getInt(base + off + 8) == level && controls.getInt(base + off + 12) == type
                        && len >= CMSG_HDR + minData) {
                    return (int) (off + CMSG_HDR);
                }
                off += (len + 7) & ~7L;
            }
            return -1;
        }

        int controlInt(int i, int at) {
            return controls.getInt((long) i * controlBytes + at);
        }

        int controlShort(int i, int at) {
            return Short.toUnsignedInt(controls.getShort((long) i * controlBytes + at));
        }

        /** Copies {@code len} bytes from {@code at} in message {@code i}'s slot into {@code dst}. */
        void copy(int i, int at, byte[] dst, int dstAt, int len) {
            slots.get((long) i * slotBytes + at, dst, dstAt, len);
        }
    }

    /**
     * Datagrams queued to leave together by one sendmmsg(2): packed into one native buffer, each with
     * its mmsghdr and iovec, no name (the socket is bound to its destination). Allocated once.
     */
    static final class SendVector {
        private final int capacity;
        private final int bufferBytes;
        private final Pointer vec;
        private final Pointer buffer;
        private int size;
        private int used;

        SendVector(int capacity, int bufferBytes) {
            this.capacity = capacity;
            this.bufferBytes = bufferBytes;
            this.vec = allocate(capacity * (MMSGHDR_SIZE + IOVEC_SIZE));
            this.buffer = allocateUncleared(bufferBytes);
        }

        /** Queues a copy of {@code datagram}; false when it does not fit. */
        boolean add(byte[] datagram) {
            if (size == capacity || used + datagram.length > bufferBytes) {
                return false;
            }
            buffer.put(used, datagram, 0, datagram.length);
            long m = (long) size * MMSGHDR_SIZE;
            long iov = (long) capacity * MMSGHDR_SIZE + (long) size * IOVEC_SIZE;
            vec.putAddress(iov, buffer.address() + used);
            vec.putLong(iov + 8, datagram.length);
            vec.putAddress(m + MSG_NAME, 0);
            vec.putInt(m + MSG_NAMELEN, 0);
            vec.putAddress(m + MSG_IOV, vec.address() + iov);
            vec.putLong(m + MSG_IOVLEN, 1);
            vec.putAddress(m + MSG_CONTROL, 0);
            vec.putLong(m + MSG_CONTROLLEN, 0);
            vec.putInt(m + MSG_FLAGS, 0);
            vec.putInt(m + MMSG_LEN, 0);
            used += datagram.length;
            size++;
            return true;
        }

        int size() {
            return size;
        }

        void clear() {
            size = 0;
            used = 0;
        }
    }

    /**
     * A native buffer for the datagrams one socket sends with sendto(2), and the address they go to
     * (none for a socket bound to its destination). Allocated once; one thread at a time.
     */
    static final class SendBuffer {
        private final int capacity;
        private final Pointer bytes;
        private final Pointer to;
        private final int toLength;

        private SendBuffer(int capacity, Pointer to, int toLength) {
            this.capacity = capacity;
            this.bytes = allocateUncleared(capacity);
            this.to = to;
            this.toLength = toLength;
        }

        /** To the kernel's netlink port (nl_pid 0). */
        static SendBuffer toNetlinkKernel(int capacity) {
            Pointer kernel = allocate(SOCKADDR_NL_SIZE);
            kernel.putShort(0, (short) AF_NETLINK);
            return new SendBuffer(capacity, kernel, SOCKADDR_NL_SIZE);
        }

        /** To wherever the socket is bound: a packet socket's interface. */
        static SendBuffer toBound(int capacity) {
            return new SendBuffer(capacity, null, 0);
        }

        int capacity() {
            return capacity;
        }

        /** Sends the first {@code len} bytes of {@code datagram}; retried on EINTR. */
        void send(int fd, byte[] datagram, int len, String call) throws NativeException {
            bytes.put(0, datagram, 0, len);
            while (true) {
                if (LIBC.sendto(fd, bytes, len, 0, to, toLength) >= 0) {
                    return;
                }
                int errno = RUNTIME.getLastError();
                if (errno != EINTR) {
                    throw error(call, errno);
                }
            }
        }
    }
}
