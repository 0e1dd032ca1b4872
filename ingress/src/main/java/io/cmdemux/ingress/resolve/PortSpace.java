package io.cmdemux.ingress.resolve;

/** enum rdma_ucm_port_space: the high bits of an rdma_cm service ID (service ID = ps << 16 | port). */
public enum PortSpace {
    IPOIB(0x0002, "ipoib"),
    TCP(0x0106, "tcp"),
    UDP(0x0111, "udp"),
    IB(0x013F, "ib");

    private final int value;
    private final String cliName;

    PortSpace(int value, String cliName) {
        this.value = value;
        this.cliName = cliName;
    }

    public int value() {
        return value;
    }

    public String cliName() {
        return cliName;
    }

    public long serviceId(int port) {
        return ((long) value << 16) | (port & 0xffff);
    }

    /** The port space of a service ID, per rdma_ps_from_service_id; empty for IDs that are not rdma_cm's. */
    public static java.util.Optional<PortSpace> ofServiceId(long serviceId) {
        if ((serviceId >>> 32) != 0) {
            return java.util.Optional.empty();
        }
        int ps = (int) ((serviceId >>> 16) & 0xffff);
        for (PortSpace p : values()) {
            if (p.value == ps) {
                return java.util.Optional.of(p);
            }
        }
        return java.util.Optional.empty();
    }

    public static PortSpace parse(String s) {
        for (PortSpace p : values()) {
            if (p.cliName.equalsIgnoreCase(s.trim())) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown port space '" + s + "' (tcp, udp, ib or ipoib)");
    }
}
