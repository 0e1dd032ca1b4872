package io.cmdemux.ingress.wire;

import java.util.Optional;

/**
 * rdma_cm port spaces (enum rdma_ucm_port_space, include/uapi/rdma/rdma_user_cm.h): the high bits
 * of an rdma_cm service ID, which is ps << 16 | port.
 */
public enum PortSpace {
    IPOIB(0x0002, "ipoib"),
    TCP(0x0106, "tcp"),
    UDP(0x0111, "udp"),
    IB(0x013F, "ib");

    private final int code;
    private final String cliName;

    PortSpace(int code, String cliName) {
        this.code = code;
        this.cliName = cliName;
    }

    public int code() {
        return code;
    }

    /** The lower-case name the CLI and JSON use. */
    public String cliName() {
        return cliName;
    }

    public long serviceId(int port) {
        return ((long) code << 16) | (port & 0xffff);
    }

    /** The port space with this code, or null. */
    public static PortSpace byCode(int code) {
        for (PortSpace p : values()) {
            if (p.code == code) {
                return p;
            }
        }
        return null;
    }

    /** rdma_ps_from_service_id: (sid >> 16) & 0xffff; empty for IDs outside the rdma_cm spaces. */
    public static Optional<PortSpace> ofServiceId(long serviceId) {
        if ((serviceId >>> 32) != 0) {
            return Optional.empty();
        }
        return Optional.ofNullable(byCode((int) ((serviceId >>> 16) & 0xffff)));
    }

    public static PortSpace parse(String s) {
        for (PortSpace p : values()) {
            if (p.cliName.equalsIgnoreCase(s.trim())) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown port space '" + s + "' (tcp, udp, ib or ipoib)");
    }

    /** The kernel's name: RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB, RDMA_PS_IPOIB. */
    public String kernelName() {
        return "RDMA_PS_" + name();
    }
}
