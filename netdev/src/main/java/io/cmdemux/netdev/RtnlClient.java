package io.cmdemux.netdev;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Request/response over a NETLINK_ROUTE socket: dumps return the kernel's own message bytes, so
 * that they can be decoded now and saved for later. Not thread-safe; one owner at a time.
 */
public final class RtnlClient implements AutoCloseable {
    /** A dump that keeps being interrupted by concurrent changes is retried this often. */
    private static final int MAX_DUMP_ATTEMPTS = 16;

    private final NetlinkSocket socket;
    private int seq = (int) (System.nanoTime() & 0x3fffffff);
    private long interruptedDumps;

    public RtnlClient(NetlinkSocket socket) {
        this.socket = socket;
    }

    /** Opens a client in the calling thread's namespace. */
    public static RtnlClient open() throws NativeException {
        NetlinkSocket s = NetlinkSocket.open(NetlinkSocket.NETLINK_ROUTE, 0);
        try {
            s.strictCheck();
        } catch (NativeException e) {
            s.close();
            throw e;
        }
        return new RtnlClient(s);
    }

    /** Dumps that came back with NLM_F_DUMP_INTR and were taken again, since this client was opened. */
    public long interruptedDumps() {
        return interruptedDumps;
    }

    public List<NlMessage> dumpLinks() throws IOException {
        return dump("RTM_GETLINK", s -> Rtnl.getLinkDump(s));
    }

    public List<NlMessage> dumpAddresses() throws IOException {
        return dumpAddresses(OptionalInt.empty());
    }

    /** The addresses of this socket's namespace, or of the one it knows by {@code targetNsid}. */
    public List<NlMessage> dumpAddresses(OptionalInt targetNsid) throws IOException {
        return dump("RTM_GETADDR", s -> Rtnl.getAddrDump(s, targetNsid));
    }

    /** Routes of every table and family in one dump (AF_UNSPEC makes rtnl_dump_all walk them all). */
    public List<NlMessage> dumpRoutes() throws IOException {
        return dump("RTM_GETROUTE", s -> Rtnl.getRouteDump(s, Rtnl.AF_UNSPEC));
    }

    public List<NlMessage> dumpNeighbors() throws IOException {
        return dump("RTM_GETNEIGH", s -> Rtnl.getNeighDump(s));
    }

    public List<NlMessage> dumpNsids(OptionalInt targetNsid) throws IOException {
        return dump("RTM_GETNSID", s -> Rtnl.getNsidDump(s, targetNsid));
    }

    /** The nsid that this socket's namespace has for {@code peer}, or -1 when none is assigned. */
    public int nsidOf(NetnsHandle peer) throws IOException {
        List<NlMessage> reply = request("RTM_GETNSID", Rtnl.getNsid(nextSeq(), peer));
        for (NlMessage m : reply) {
            if (m.type() == Rtnl.RTM_NEWNSID) {
                try {
                    return Rtnl.decodeNsid(m).nsid();
                } catch (MalformedException e) {
                    throw new IOException("RTM_GETNSID reply: " + e.getMessage(), e);
                }
            }
        }
        return Rtnl.NETNSA_NSID_NOT_ASSIGNED;
    }

    /** Assigns an nsid to {@code peer} if it has none (EEXIST is success) and returns it. */
    public int ensureNsid(NetnsHandle peer) throws IOException {
        int nsid = nsidOf(peer);
        if (nsid >= 0) {
            return nsid;
        }
        try {
            request("RTM_NEWNSID", Rtnl.assignNsid(nextSeq(), peer));
        } catch (NativeException e) {
            if (e.errno() != 17) { // EEXIST: someone else assigned it between our two requests
                throw e;
            }
        }
        return nsidOf(peer);
    }

    private int nextSeq() {
        seq = (seq + 1) & 0x7fffffff;
        return seq;
    }

    private interface RequestMaker {
        NlRequest make(int seq);
    }

    private List<NlMessage> dump(String what, RequestMaker maker) throws IOException {
        for (int attempt = 1; ; attempt++) {
            List<NlMessage> out = new ArrayList<>();
            boolean interrupted = exchange(what, maker.make(nextSeq()), out);
            if (!interrupted) {
                return out;
            }
            // NLM_F_DUMP_INTR: the table changed while the kernel walked it; only a fresh dump is consistent.
            interruptedDumps++;
            if (attempt == MAX_DUMP_ATTEMPTS) {
                throw new IOException(what + " dump interrupted " + attempt + " times in a row by concurrent changes");
            }
        }
    }

    private List<NlMessage> request(String what, NlRequest r) throws IOException {
        List<NlMessage> out = new ArrayList<>(1);
        exchange(what, r, out);
        return out;
    }

    /** Sends one request and collects replies to it until DONE, an ACK or a single non-multi reply. */
    private boolean exchange(String what, NlRequest request, List<NlMessage> out) throws IOException {
        java.nio.ByteBuffer bytes = request.build();
        int mySeq = bytes.getInt(8);
        boolean dump = (Short.toUnsignedInt(bytes.getShort(6)) & NlMessage.NLM_F_DUMP) == NlMessage.NLM_F_DUMP;
        socket.send(bytes);
        boolean interrupted = false;
        while (true) {
            NetlinkSocket.Datagram d = socket.receive();
            if (d == null) {
                throw new IOException(what + ": no reply from the kernel");
            }
            List<NlMessage> msgs;
            try {
                msgs = NlMessage.split(d.bytes());
            } catch (MalformedException e) {
                throw new IOException(what + ": kernel reply does not parse: " + e.getMessage(), e);
            }
            for (NlMessage m : msgs) {
                if (m.seq() != mySeq || m.pid() != socket.portId()) {
                    continue; // a stale reply to an earlier, abandoned request
                }
                if ((m.flags() & NlMessage.NLM_F_DUMP_INTR) != 0) {
                    interrupted = true;
                }
                switch (m.type()) {
                    case NlMessage.NLMSG_DONE:
                        return interrupted;
                    case NlMessage.NLMSG_ERROR: {
                        int err;
                        try {
                            err = m.error();
                        } catch (MalformedException e) {
                            throw new IOException(what + ": " + e.getMessage(), e);
                        }
                        if (err == 0) {
                            return interrupted; // ACK
                        }
                        String ext = m.extAckMessage();
                        throw new NativeException(what, -err, ext != null ? ext : "netlink error");
                    }
                    case NlMessage.NLMSG_NOOP:
                        break;
                    default:
                        out.add(m);
                        if (!dump && (m.flags() & NlMessage.NLM_F_MULTI) == 0) {
                            return interrupted;
                        }
                }
            }
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
