package io.cmdemux.observer.nldev;

/**
 * One port of the PORT_GET dump, or a device of the GET dump (port 0), with the net device the kernel ties to it.
 *
 * @param ndevIndex RDMA_NLDEV_ATTR_NDEV_INDEX, 0 when absent
 * @param ndevName RDMA_NLDEV_ATTR_NDEV_NAME, null when absent
 */
public record RdmaLink(int deviceIndex, String device, int port, int portState, int ndevIndex, String ndevName) {}
