package io.cmdemux.ingress.resolve;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;

/**
 * What a trace step points at in the host's topology: a port, a GID or P_Key table slot, a net
 * device, a namespace or a listener. The step's text says it for people; this says it for a
 * picture, which must not have to parse the text.
 */
public sealed interface TraceRef {
    /** An RDMA device's port. */
    record Port(String device, int port) implements TraceRef {}

    /** A GID table slot; {@code ndev} is the entry's net device, or null (IB, or not known). */
    record GidIndex(String device, int port, int index, LinkRef ndev) implements TraceRef {}

    /** A P_Key table slot. */
    record PkeyIndex(String device, int port, int index) implements TraceRef {}

    /** A net device, anywhere on the host. */
    record Netdev(LinkRef link) implements TraceRef {}

    /** A network namespace. */
    record Namespace(NetnsId netns) implements TraceRef {}

    /** A listener (rdma_cm id bound and listening). */
    record Listen(Listener listener) implements TraceRef {}
}
