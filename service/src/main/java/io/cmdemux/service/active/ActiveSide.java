package io.cmdemux.service.active;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmMra;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.CmRep;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.netdev.ClassicBpf;
import io.cmdemux.netdev.PacketSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.security.SecureRandom;

/**
 * The requesting side of rdma_connect over RoCEv2, in user space: one REQ on the wire, repeated
 * until something answers it (REJ, MRA or REP naming our comm ID) or the time is up.
 */
public final class ActiveSide implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final NextHop hop;
    private final PacketSocket socket;
    private final long caGuid;

    /** What came back for one REQ. */
    public record Outcome(String result, int localCommId, Integer rejectReason, CmMessage answer, long elapsedMicros, int sent) {}

    public ActiveSide(NextHop hop) throws IOException {
        this.hop = hop;
        this.socket = PacketSocket.open(hop.ifindex(), ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 50);
        byte[] m = hop.srcMac().bytes();
        // The modified EUI-64 of our MAC: how a RoCE NIC derives its node GUID.
        this.caGuid = ((long) ((m[0] ^ 0x02) & 0xff) << 56) | ((long) (m[1] & 0xff) << 48) | ((long) (m[2] & 0xff) << 40)
                | (0xfffeL << 24) | ((long) (m[3] & 0xff) << 16) | ((long) (m[4] & 0xff) << 8) | (m[5] & 0xff);
    }

    public NextHop hop() {
        return hop;
    }

    public static int newCommId() {
        return RANDOM.nextInt() | 1;
    }

    public Outcome connect(InetAddress dst, int dstPort, int srcPort, PortSpace ps, long timeoutMillis, long retryMillis) throws IOException {
        int localCommId = newCommId();
        CmReq req = RdmaCmRequests.req(localCommId, caGuid, RANDOM.nextInt(0xffffff) | 1, RANDOM.nextInt(0xffffff), ps, hop.src(), srcPort, dst, dstPort, null);
        byte[] frame = RoceFrameBuilder.cmFrame(new L2Header(hop.dstMac(), hop.srcMac(), null), L3Header.of(Gid.ofIp(hop.src()), Gid.ofIp(dst)),
                0xc000 | (RANDOM.nextInt() & 0x3fff), 0xffff, RANDOM.nextInt(0xffffff), Mad.of(req, RANDOM.nextLong() & 0x7fffffffffffffffL));
        long start = System.nanoTime();
        long deadline = start + timeoutMillis * 1_000_000;
        long nextSend = start;
        int sent = 0;
        while (true) {
            long now = System.nanoTime();
            if (now >= deadline) {
                return new Outcome("timeout", localCommId, null, null, (now - start) / 1000, sent);
            }
            if (now >= nextSend) {
                socket.send(frame);
                sent++;
                nextSend = now + retryMillis * 1_000_000;
            }
            PacketSocket.Frame in = socket.receive();
            if (in == null) {
                continue;
            }
            FrameResult r = RoceDecoder.decodeEthernet(in.bytes());
            if (!(r instanceof FrameResult.Decoded d) || !d.frame().icrcValid()) {
                continue;
            }
            CmMessage m = d.frame().mad().message();
            long micros = (System.nanoTime() - start) / 1000;
            if (m instanceof CmRej rej && rej.remoteCommId() == localCommId) {
                return new Outcome("rej", localCommId, rej.reason(), m, micros, sent);
            }
            if (m instanceof CmMra mra && mra.remoteCommId() == localCommId) {
                return new Outcome("mra", localCommId, null, m, micros, sent);
            }
            if (m instanceof CmRep rep && rep.remoteCommId() == localCommId) {
                return new Outcome("rep", localCommId, null, m, micros, sent);
            }
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
