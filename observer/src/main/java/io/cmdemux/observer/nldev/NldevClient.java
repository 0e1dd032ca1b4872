package io.cmdemux.observer.nldev;

import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NativeException;
import io.cmdemux.netdev.NetlinkSocket;
import io.cmdemux.netdev.NlMessage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Asks the kernel for the nldev dumps over NETLINK_RDMA, in the calling thread's namespace, as `rdma` does: GET,
 * then PORT_GET and RES_CM_ID_GET per device (those dumps need RDMA_NLDEV_ATTR_DEV_INDEX).
 */
public final class NldevClient implements AutoCloseable {
    private final NetlinkSocket socket;
    private final List<String> skipped = new ArrayList<>();
    private int seq = 1;

    private NldevClient(NetlinkSocket socket) {
        this.socket = socket;
    }

    /**
     * Opens the socket.
     *
     * @throws NativeException with errno EPROTONOSUPPORT when the kernel has no NETLINK_RDMA (ib_core not loaded)
     */
    public static NldevClient open() throws NativeException {
        NetlinkSocket s = NetlinkSocket.open(NetlinkSocket.NETLINK_RDMA, 0);
        try {
            s.receiveTimeout(2000);
        } catch (NativeException e) {
            s.close();
            throw e;
        }
        return new NldevClient(s);
    }

    public NldevDump dump() throws IOException {
        List<NlMessage> all = new ArrayList<>(exchange(Nldev.RDMA_NLDEV_CMD_GET, null));
        NldevDump devices = NldevDump.of(all, skipped);
        for (RdmaLink d : devices.devices()) {
            all.addAll(exchange(Nldev.RDMA_NLDEV_CMD_PORT_GET, d.deviceIndex()));
            all.addAll(exchange(Nldev.RDMA_NLDEV_CMD_RES_CM_ID_GET, d.deviceIndex()));
        }
        return NldevDump.of(all, skipped);
    }

    /** Messages that did not decode, with their reasons, since the client opened. */
    public List<String> skipped() {
        return List.copyOf(skipped);
    }

    private List<NlMessage> exchange(int op, Integer device) throws IOException {
        ByteBuffer req = Nldev.dumpRequest(op, seq++, device);
        int mySeq = req.getInt(8);
        socket.send(req);
        List<NlMessage> out = new ArrayList<>();
        while (true) {
            NetlinkSocket.Datagram d = socket.receive();
            if (d == null) {
                throw new IOException("nldev op " + op + ": no reply from the kernel in 2 s");
            }
            List<NlMessage> msgs;
            try {
                msgs = NlMessage.split(d.bytes());
            } catch (MalformedException e) {
                throw new IOException("nldev op " + op + ": reply does not parse: " + e.getMessage(), e);
            }
            for (NlMessage m : msgs) {
                if (m.seq() != mySeq) {
                    continue;
                }
                if (m.type() == NlMessage.NLMSG_DONE) {
                    return out;
                }
                if (m.type() == NlMessage.NLMSG_ERROR) {
                    int err;
                    try {
                        err = m.error();
                    } catch (MalformedException e) {
                        throw new IOException("nldev op " + op + ": " + e.getMessage(), e);
                    }
                    if (err == 0) {
                        return out;
                    }
                    throw new NativeException("nldev op " + op, -err, m.extAckMessage());
                }
                out.add(m);
            }
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
