package io.cmdemux.control.protocol;

import io.cmdemux.namespaces.NetnsId;

/**
 * Who the daemon thinks a connection is: HELLO's answer, and what a query handler is told.
 *
 * @param pid the peer's pid from SO_PEERCRED, in the daemon's pid namespace; 0 when unknown
 * @param netnsName the namespace's first name under /run/netns, "host", or "" when unnamed
 * @param clientName what the client called itself in HELLO (for logs only; never trusted)
 */
public record ConsumerInfo(long consumerId, NetnsId netns, Via via, int pid, String netnsName, String clientName) {}
