package io.cmdemux.netdev;

/** Symbolic errno names from asm-generic/errno-base.h and errno.h, for messages a person can grep. */
final class ErrnoNames {
    private static final String[] NAMES = new String[134];

    static {
        String[][] pairs = {
            {"1", "EPERM"}, {"2", "ENOENT"}, {"3", "ESRCH"}, {"4", "EINTR"}, {"5", "EIO"}, {"9", "EBADF"},
            {"11", "EAGAIN"}, {"12", "ENOMEM"}, {"13", "EACCES"}, {"16", "EBUSY"}, {"17", "EEXIST"},
            {"19", "ENODEV"}, {"20", "ENOTDIR"}, {"22", "EINVAL"}, {"24", "EMFILE"}, {"28", "ENOSPC"},
            {"34", "ERANGE"}, {"61", "ENODATA"}, {"71", "EPROTO"}, {"75", "EOVERFLOW"}, {"90", "EMSGSIZE"},
            {"92", "ENOPROTOOPT"}, {"93", "EPROTONOSUPPORT"}, {"95", "EOPNOTSUPP"}, {"97", "EAFNOSUPPORT"},
            {"98", "EADDRINUSE"}, {"99", "EADDRNOTAVAIL"}, {"105", "ENOBUFS"}, {"110", "ETIMEDOUT"},
            {"111", "ECONNREFUSED"}, {"113", "EHOSTUNREACH"},
        };
        for (String[] p : pairs) {
            NAMES[Integer.parseInt(p[0])] = p[1];
        }
    }

    private ErrnoNames() {}

    static String name(int errno) {
        if (errno > 0 && errno < NAMES.length && NAMES[errno] != null) {
            return NAMES[errno];
        }
        return "errno " + errno;
    }
}
