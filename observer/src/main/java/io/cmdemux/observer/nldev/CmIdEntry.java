package io.cmdemux.observer.nldev;

import java.net.InetSocketAddress;

/**
 * One cm_id of the RES_CM_ID dump (fill_res_cm_id_entry in drivers/infiniband/core/nldev.c).
 *
 * @param port RDMA_NLDEV_ATTR_PORT_INDEX, 0 when the cm_id is bound to no port (a listener)
 * @param cmIdn RDMA_NLDEV_ATTR_RES_CM_IDN: the restrack ID that rdma_cma's tracepoints print as cm.id
 * @param state enum rdma_cm_state (RDMA_CM_LISTEN is 8)
 * @param ps RDMA_NLDEV_ATTR_RES_PS: enum rdma_ucm_port_space (262 TCP, 273 UDP, 319 IB, 2 IPOIB)
 * @param pid RDMA_NLDEV_ATTR_RES_PID, 0 for a kernel consumer (then kernName says which)
 * @param src the bound address, null when the kernel sent none
 */
public record CmIdEntry(String device, int deviceIndex, int port, int cmIdn, int state, int ps, int pid,
        String kernName, InetSocketAddress src, InetSocketAddress dst) {
    /** enum rdma_cm_state in drivers/infiniband/core/cma_priv.h. */
    public static final int RDMA_CM_LISTEN = 8;

    public boolean listening() {
        return state == RDMA_CM_LISTEN;
    }
}
