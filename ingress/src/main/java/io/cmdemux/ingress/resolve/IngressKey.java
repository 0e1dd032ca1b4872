package io.cmdemux.ingress.resolve;

/**
 * Where a request came in and for whom, the key the netns seed proposes for the RDMA CM's ingress:
 * the RDMA device and port, the GUID it was addressed to (the interface ID of our GID) and the P_Key.
 */
public record IngressKey(String device, int port, long guid, int pkey) {}
