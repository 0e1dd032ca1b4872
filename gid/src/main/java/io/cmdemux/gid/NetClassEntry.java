package io.cmdemux.gid;

import io.cmdemux.netdev.HwAddr;

/** An IPoIB or RoCE netdev as /sys/class/net shows it. */
public record NetClassEntry(String name, int type, HwAddr address, int devPort, int devId, int pkey, String device,
        boolean ipoibParent) {
    /** The IPoIB hardware address: 4 bytes of flags and QPN, then the port GID (ipoib_main.c). */
    private static final int IPOIB_HWADDR_LEN = 20;
    private static final int IPOIB_GID_OFFSET = 4;

    /** The port GID inside a 20-byte IPoIB hardware address, or null. */
    public Gid ipoibGid() {
        return ipoibGid(address);
    }

    /** Whether this netdev is port {@code port} of its device (dev_port, or dev_id on kernels before it). */
    boolean isPort(int port) {
        return devPort == port - 1 || (devPort < 0 && devId == port - 1);
    }

    /** The port GID inside a 20-byte IPoIB hardware address, or null. */
    static Gid ipoibGid(HwAddr address) {
        if (address == null || address.length() != IPOIB_HWADDR_LEN) {
            return null;
        }
        byte[] g = new byte[16];
        System.arraycopy(address.bytes(), IPOIB_GID_OFFSET, g, 0, 16);
        return Gid.of(g);
    }
}
