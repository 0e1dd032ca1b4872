package io.cmdemux.ingress.wire;

/**
 * A CM service ID as rdma_cm builds it (rdma_get_service_id in drivers/infiniband/core/cma.c):
 * the prefix 0x0000000001 (IBTA Annex A11.2, RDMA IP CM service), the port space, the port.
 */
public record ServiceId(long value) {
    // include/rdma/rdma_cm_ib.h: RDMA_IB_IP_PS_MASK and the 0x0000000001 prefix of RDMA_IB_IP_PS_*
    private static final long IP_CM_PREFIX_MASK = 0xFFFFFFFFFF000000L;
    private static final long IP_CM_PREFIX = 0x0000000001000000L;

    public static ServiceId of(PortSpace space, int port) {
        Be.check("port", port, 16);
        return new ServiceId(((long) space.code() << 16) | port);
    }

    /** {@code (sid >> 16) & 0xffff}, as rdma_ps_from_service_id computes it. */
    public int portSpaceCode() {
        return (int) (value >>> 16) & 0xffff;
    }

    /** The port space, or null when the code is none of rdma_cm's. */
    public PortSpace portSpace() {
        return PortSpace.byCode(portSpaceCode());
    }

    /** {@code sid & 0xffff}, as cma_port_from_service_id computes it. */
    public int port() {
        return (int) (value & 0xffff);
    }

    /** Whether the ID carries the RDMA IP CM prefix of Annex A11. */
    public boolean hasIpCmPrefix() {
        return (value & IP_CM_PREFIX_MASK) == IP_CM_PREFIX;
    }

    @Override
    public String toString() {
        return String.format("0x%016x", value);
    }
}
