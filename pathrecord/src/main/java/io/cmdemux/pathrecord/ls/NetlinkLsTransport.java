package io.cmdemux.pathrecord.ls;

import io.cmdemux.netdev.NativeException;
import io.cmdemux.netdev.NetlinkSocket;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The production transport: a NETLINK_RDMA socket in the host namespace, bound to the legacy group
 * mask of RDMA_NL_GROUP_LS, the way ibacm's acm_init_nl binds. The kernel multicasts RESOLVE only in
 * init_net (sa_query.c ib_nl_make_request) and only while someone listens (rdma_nl_chk_listeners);
 * replies go to the kernel (nl_pid 0) and need CAP_NET_ADMIN (RDMA_NL_ADMIN_PERM).
 */
public final class NetlinkLsTransport implements LsTransport {
    // <errno.h>
    private static final int EPROTONOSUPPORT = 93;
    private final NetlinkSocket socket;
    private int timeoutSet = -1;

    private NetlinkLsTransport(NetlinkSocket socket) {
        this.socket = socket;
    }

    /**
     * Opens the socket in the calling thread's namespace (which must be the host's).
     *
     * @throws TransportUnavailableException when the kernel has no NETLINK_RDMA, with what to do about it
     */
    public static NetlinkLsTransport open() throws IOException {
        try {
            NetlinkSocket s = NetlinkSocket.open(Ls.NETLINK_RDMA, Ls.GROUP_LS_MASK);
            s.receiveBuffer(1 << 20);
            return new NetlinkLsTransport(s);
        } catch (NativeException e) {
            if (e.errno() == EPROTONOSUPPORT) {
                throw new TransportUnavailableException("this kernel has no NETLINK_RDMA (" + e.getMessage()
                        + "): load ib_core (modprobe ib_core) on a host with RDMA; the RDMA_NL_LS responder stays off");
            }
            throw e;
        }
    }

    @Override
    public Received receive(int timeoutMs) throws IOException {
        if (timeoutSet != timeoutMs) {
            socket.receiveTimeout(timeoutMs);
            timeoutSet = timeoutMs;
        }
        NetlinkSocket.Datagram d = socket.receive();
        return d == null ? null : new Received(d.bytes(), d.senderPort());
    }

    @Override
    public synchronized void send(byte[] message) throws IOException {
        socket.send(ByteBuffer.wrap(message));
    }

    @Override
    public int portId() {
        return socket.portId();
    }

    @Override
    public void close() {
        socket.close();
    }

    /** The kernel cannot give us this transport at all; nothing is wrong with us. */
    public static final class TransportUnavailableException extends IOException {
        public TransportUnavailableException(String message) {
            super(message);
        }
    }
}
