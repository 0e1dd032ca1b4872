package io.cmdemux.netdev;

import java.io.IOException;
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
 * leaves as a {@link NativeException} that names the call and the errno.
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
        String strerror(int errnum);
    }

    // <sys/socket.h>, <linux/netlink.h>, <fcntl.h>, <sched.h>
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
    static final int EAGAIN = 11;
    static final int ENOBUFS = 105;

    static final LibC LIBC = LibraryLoader.create(LibC.class).load("c");
    static final Runtime RUNTIME = Runtime.getRuntime(LIBC);

    private Native() {}

    static int errno() {
        return RUNTIME.getLastError();
    }

    static NativeException error(String call) {
        int errno = errno();
        return new NativeException(call, errno, LIBC.strerror(errno));
    }

    static int check(int rc, String call) throws NativeException {
        if (rc < 0) {
            throw error(call);
        }
        return rc;
    }

    static Pointer allocate(int size) {
        return Memory.allocateDirect(RUNTIME, size, true);
    }

    /** For buffers that are always written before they are read: skips zeroing them. */
    static Pointer allocateUncleared(int size) {
        return Memory.allocateDirect(RUNTIME, size, false);
    }

    /** setsockopt with an int value; false (errno kept) rather than an exception when {@code bestEffort}. */
    static boolean setInt(int fd, int level, int name, int value, boolean bestEffort, String call) throws NativeException {
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

    /** SO_RCVTIMEO: a blocking receive returns EAGAIN after this long, so a reader thread can notice it should stop. */
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
}
