package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmAddressing;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.CmSidrReq;
import io.cmdemux.ingress.wire.Octets;
import io.cmdemux.ingress.wire.RoceFrame;
import java.util.Optional;
import java.util.OptionalInt;

/** Synthesises the packet metadata of a received REQ or SIDR REQ, as the netstack would see it. */
public final class PacketMetas {
    private PacketMetas() {}

    /** The metadata of a REQ or SIDR REQ that arrived on {@code device}/{@code port}; empty for other CM messages. */
    public static Optional<PacketMeta> of(String device, int port, RoceFrame frame) {
        CmMessage m = frame.mad().message();
        int vlan = frame.l2() != null && frame.l2().vlan() != null ? frame.l2().vlan().vid() : -1;
        OptionalInt vlanId = vlan < 0 ? OptionalInt.empty() : OptionalInt.of(vlan);
        Gid dgid = frame.l3().dst();
        NetworkType type = NetworkType.ROCE_V2; // the decoder only accepts RoCEv2 (UDP 4791) frames
        if (m instanceof CmReq req) {
            Head h = head(req.serviceId(), req.privateData());
            return Optional.of(new PacketMeta(
                    new IngressKey(device, port, req.primaryPath().remoteGid().lo(), req.pkey()), type, dgid,
                    req.primaryPath().remoteGid(), req.primaryPath().localGid(), req.pkey(), frame.bth().pkey(),
                    req.serviceId(), h.cmaVersion, h.ipVersion, h.dst, h.src, h.srcPort, vlanId,
                    frame.l2() == null ? null : frame.l2().dst(), false, Integer.toUnsignedLong(req.localCommId()),
                    QpType.ofReq(req.transportServiceType(), req.extendedTransportType()), frame.l3().src()));
        }
        if (m instanceof CmSidrReq sidr) {
            Head h = head(sidr.serviceId(), sidr.privateData());
            // A SIDR REQ carries no path: our GID is the packet's destination (cma_save_req_info sets has_gid = false).
            return Optional.of(new PacketMeta(new IngressKey(device, port, dgid.lo(), sidr.pkey()), type, dgid, null,
                    frame.l3().src(), sidr.pkey(), frame.bth().pkey(), sidr.serviceId(), h.cmaVersion, h.ipVersion,
                    h.dst, h.src, h.srcPort, vlanId, frame.l2() == null ? null : frame.l2().dst(), true,
                    Integer.toUnsignedLong(sidr.requestId()), null, frame.l3().src()));
        }
        return Optional.empty();
    }

    private record Head(
            int cmaVersion, int ipVersion, java.net.InetAddress dst, java.net.InetAddress src, int srcPort) {}

    private static Head head(long serviceId, Octets privateData) {
        CmAddressing a = CmAddressing.of(serviceId, privateData);
        if (a instanceof CmAddressing.Ip ip) {
            return new Head(0, ip.header().ipVersion(), ip.dst(), ip.src(), ip.srcPort());
        }
        if (a instanceof CmAddressing.BadCmaVersion bad) {
            return new Head(bad.cmaVersion(), 0, null, null, 0);
        }
        return new Head(0, 0, null, null, 0);
    }
}
