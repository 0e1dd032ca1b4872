package io.cmdemux.pathrecord.ls;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * How RDMA_NL_LS datagrams reach the responder and its replies reach the kernel. In production a
 * NETLINK_RDMA socket bound to RDMA_NL_GROUP_LS ({@link NetlinkLsTransport}); in tests anything that
 * carries the kernel's byte layout and says who sent each datagram.
 */
public interface LsTransport extends AutoCloseable {
    /**
     * One datagram and its sender's netlink port id (nl_pid of the source address): 0 for the kernel.
     * Other responders (ibacm multicasts its replies to the LS group) have their own non-zero port ids.
     */
    record Received(ByteBuffer bytes, int senderPortId) {}

    /** The next datagram, or null when none came within {@code timeoutMs}. */
    Received receive(int timeoutMs) throws IOException;

    /** Sends one message to the kernel. Called from any thread. */
    void send(byte[] message) throws IOException;

    /** Our own port id, echoed in replies' nlmsg_pid (ibacm puts its pid there; the kernel ignores it). */
    int portId();

    @Override
    void close();
}
