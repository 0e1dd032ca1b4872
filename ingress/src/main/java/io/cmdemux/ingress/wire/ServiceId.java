package io.cmdemux.ingress.wire;

/**
 * A CM service ID as rdma_cm builds it (rdma_get_service_id in drivers/infiniband/core/cma.c):
 * {@code (port space << 16) + port}, so an IP service ID has its top 32 bits zero.
 */
public record ServiceId(long value) {

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

    @Override
    public String toString() {
        return String.format("0x%016x", value);
    }
}
