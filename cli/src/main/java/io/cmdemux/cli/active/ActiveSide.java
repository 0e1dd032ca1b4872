package io.cmdemux.cli.active;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmDrep;
import io.cmdemux.ingress.wire.CmDreq;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmMra;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.CmRep;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.CmRtu;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.Octets;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrame;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.netdev.ClassicBpf;
import io.cmdemux.netdev.PacketSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The requesting side of rdma_connect over RoCEv2, in user space: REQ (repeated until answered),
 * then on REP the RTU; optionally a hold and DREQ until DREP. MRA only says the request reached
 * a listener; REJ ends it.
 */
public final class ActiveSide implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final NextHop hop;
    private final PacketSocket socket;
    private final long caGuid;

    /**
     * What came back. {@code result}: rep (connected), mra (delivered, no REP in time), rej, timeout.
     * {@code steps} are microseconds from the first REQ, in order: mra, rep, rtu, dreq, drep.
     */
    public record Outcome(String result, int localCommId, Integer rejectReason, CmMessage answer,
            long elapsedMicros, int sent, Map<String, Long> steps, String disconnect) {}

    public ActiveSide(NextHop hop) throws IOException {
        this.hop = hop;
        this.socket = PacketSocket.open(hop.ifindex(), ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 20);
        byte[] m = hop.srcMac().bytes();
        // The modified EUI-64 of our MAC: how a RoCE NIC derives its node GUID.
        this.caGuid = ((long) ((m[0] ^ 0x02) & 0xff) << 56) | ((long) (m[1] & 0xff) << 48)
                | ((long) (m[2] & 0xff) << 40) | (0xfffeL << 24) | ((long) (m[3] & 0xff) << 16)
                | ((long) (m[4] & 0xff) << 8) | (m[5] & 0xff);
    }

    public NextHop hop() {
        return hop;
    }

    public static int newCommId() {
        return RANDOM.nextInt() | 1;
    }

    /** Options of one connection attempt. */
    public record Options(long timeoutMillis, long retryMillis, boolean waitForRep, long holdMillis,
            int cmResponseTimeout) {}

    public Outcome connect(InetAddress dst, int dstPort, int srcPort, PortSpace ps, Options o) throws IOException {
        int localCommId = newCommId();
        CmReq req = RdmaCmRequests.req(localCommId, caGuid, RANDOM.nextInt(0xffffff) | 1, RANDOM.nextInt(0xffffff), ps,
                hop.src(), srcPort, dst, dstPort, null, o.cmResponseTimeout());
        L2Header l2 = new L2Header(hop.dstMac(), hop.srcMac(), null);
        L3Header l3 = L3Header.of(Gid.ofIp(hop.src()), Gid.ofIp(dst));
        int udpSrc = 0xc000 | (RANDOM.nextInt() & 0x3fff);
        byte[] frame = RoceFrameBuilder.cmFrame(l2, l3, udpSrc, 0xffff, RANDOM.nextInt(0xffffff),
                Mad.of(req, RANDOM.nextLong() & 0x7fffffffffffffffL));
        Map<String, Long> steps = new LinkedHashMap<>();
        long start = System.nanoTime();
        long deadline = start + o.timeoutMillis() * 1_000_000;
        long nextSend = start;
        int sent = 0;
        boolean acknowledged = false;
        CmRep rep = null;
        byte[] rtu = null;
        while (true) {
            long now = System.nanoTime();
            if (now >= deadline) {
                String r = rep != null ? "rep" : acknowledged ? "mra" : "timeout";
                return new Outcome(r, localCommId, null, null, (now - start) / 1000, sent, steps, null);
            }
            if (!acknowledged && rep == null && now >= nextSend) {
                socket.send(frame);
                sent++;
                nextSend = now + o.retryMillis() * 1_000_000;
            }
            RoceFrame in = next();
            if (in == null) {
                continue;
            }
            CmMessage m = in.mad().message();
            long micros = (System.nanoTime() - start) / 1000;
            if (m instanceof CmRej rej && rej.remoteCommId() == localCommId) {
                steps.put("rej", micros);
                return new Outcome("rej", localCommId, rej.reason(), m, micros, sent, steps, null);
            }
            if (m instanceof CmMra mra && mra.remoteCommId() == localCommId) {
                if (!acknowledged) {
                    steps.put("mra", micros);
                }
                acknowledged = true;
                if (!o.waitForRep()) {
                    return new Outcome("mra", localCommId, null, m, micros, sent, steps, null);
                }
                continue;
            }
            if (m instanceof CmRep r && r.remoteCommId() == localCommId) {
                if (rep == null) {
                    steps.put("rep", micros);
                    rep = r;
                    rtu = RoceFrameBuilder.reply(in, new CmRtu(localCommId, r.localCommId(),
                            Octets.zeros(0)), udpSrc, 0);
                }
                // cm_dup_rep_handler: a repeated REP means our RTU was lost; send it again
                socket.send(rtu);
                steps.putIfAbsent("rtu", (System.nanoTime() - start) / 1000);
                if (o.holdMillis() < 0) {
                    return new Outcome("rep", localCommId, null, r, micros, sent, steps, null);
                }
                String how = hold(in, rep, localCommId, udpSrc, o, start, steps);
                return new Outcome("rep", localCommId, null, r, (System.nanoTime() - start) / 1000, sent, steps, how);
            }
        }
    }

    /** Holds the connection, then DREQ until DREP; answers a DREQ from the peer with DREP. */
    private String hold(RoceFrame repFrame, CmRep rep, int localCommId, int udpSrc, Options o, long start, Map<String,
            Long> steps) throws IOException {
        long until = System.nanoTime() + o.holdMillis() * 1_000_000;
        while (System.nanoTime() < until) {
            RoceFrame in = next();
            if (in == null) {
                continue;
            }
            CmMessage m = in.mad().message();
            if (m instanceof CmDreq dreq && dreq.remoteCommId() == localCommId) {
                steps.put("peer-dreq", (System.nanoTime() - start) / 1000);
                socket.send(RoceFrameBuilder.reply(in, new CmDrep(localCommId, rep.localCommId(),
                        Octets.zeros(0)), udpSrc, 0));
                return "peer";
            }
            if (m instanceof CmRep r && r.remoteCommId() == localCommId) {
                socket.send(RoceFrameBuilder.reply(in, new CmRtu(localCommId, rep.localCommId(),
                        Octets.zeros(0)), udpSrc, 0));
            }
        }
        byte[] dreq = RoceFrameBuilder.reply(repFrame, new CmDreq(localCommId, rep.localCommId(), rep.localQpn(),
                Octets.zeros(0)), udpSrc, 0);
        steps.put("dreq", (System.nanoTime() - start) / 1000);
        long deadline = System.nanoTime() + o.timeoutMillis() * 1_000_000;
        long nextSend = 0;
        while (System.nanoTime() < deadline) {
            if (System.nanoTime() >= nextSend) {
                socket.send(dreq);
                nextSend = System.nanoTime() + o.retryMillis() * 1_000_000;
            }
            RoceFrame in = next();
            if (in != null && in.mad().message() instanceof CmDrep drep && drep.remoteCommId() == localCommId) {
                steps.put("drep", (System.nanoTime() - start) / 1000);
                return "drep";
            }
        }
        return "no-drep";
    }

    private RoceFrame next() throws IOException {
        PacketSocket.Frame in = socket.receive();
        if (in == null) {
            return null;
        }
        FrameResult r = RoceDecoder.decodeEthernet(in.bytes());
        if (!(r instanceof FrameResult.Decoded d) || !d.frame().icrcValid()) {
            return null;
        }
        return d.frame();
    }

    @Override
    public void close() {
        socket.close();
    }
}
