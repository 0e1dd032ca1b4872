package io.cmdemux.ingress.wire;

import io.cmdemux.netdev.MalformedException;
import java.net.InetAddress;

/**
 * How a REQ or SIDR REQ addresses its listener, read the way rdma_cm reads it. cma_get_net_dev
 * calls cma_save_ip_info on the private data of every request, whatever its service ID and port
 * space (drivers/infiniband/core/cma.c): a cma_version other than 0 is -EINVAL (the request is
 * refused), an IP version other than 4 or 6 is -EAFNOSUPPORT, which cma_ib_id_from_event takes as
 * native IB addressing (AF_IB: no net device, init_net); anything else is an IP request, found by
 * (namespace, port space, port) and the header's destination. So an RDMA_PS_IB request from an
 * AF_INET or AF_INET6 id is an IP request like a TCP one, and an AF_IB request whose user data
 * happens to start with bytes 00 4x is one too.
 */
public sealed interface CmAddressing permits CmAddressing.Ip, CmAddressing.NativeIb, CmAddressing.BadCmaVersion {

    ServiceId serviceId();

    /**
     * An IP request: the listener is found by (namespace, port space, port) and {@code dst}.
     *
     * @param portSpace rdma_ps_from_service_id; null when the code is none of rdma_cm's (no rdma_cm
     *     listener can have such an ID, so ib_cm answers before the header matters)
     */
    record Ip(ServiceId serviceId, PortSpace portSpace, int port, CmaHeader header, InetAddress src, int srcPort,
            InetAddress dst)
            implements CmAddressing {}

    /** AF_IB: no IP header applies, so there is no netdev and the namespace is the host's. */
    record NativeIb(ServiceId serviceId, String why) implements CmAddressing {}

    /** cma_save_ip_info returns -EINVAL for a cma_version other than 0: the kernel refuses the request. */
    record BadCmaVersion(ServiceId serviceId, int cmaVersion) implements CmAddressing {}

    static CmAddressing of(CmReq req) {
        return of(req.serviceId(), req.privateData());
    }

    /** Classifies a request by its private data, as cma_save_ip_info does; never fails. */
    static CmAddressing of(long serviceIdValue, Octets privateData) {
        byte[] b = privateData.toByteArray();
        return of(serviceIdValue, b, 0, b.length);
    }

    /** The same, with the private data read in place at {@code b[offset .. offset+length)}. */
    static CmAddressing of(long serviceIdValue, byte[] b, int offset, int length) {
        ServiceId sid = new ServiceId(serviceIdValue);
        PortSpace ps = sid.portSpace();
        CmaHeader h;
        try {
            h = CmaHeader.decode(b, offset, length);
        } catch (MalformedException e) {
            // Only a synthetic request can be this short: a REQ carries 92 bytes, a SIDR REQ 216.
            return new NativeIb(sid, e.reason());
        }
        if (h.cmaVersion() != CmaHeader.CMA_VERSION) {
            return new BadCmaVersion(sid, h.cmaVersion());
        }
        if (h.ipVersion() == 4) {
            return new Ip(
                    sid, ps, sid.port(), h, CmaHeader.asIpv4(h.srcAddr()), h.srcPort(), CmaHeader.asIpv4(h.dstAddr()));
        }
        if (h.ipVersion() == 6) {
            return new Ip(
                    sid, ps, sid.port(), h, CmaHeader.asIpv6(h.srcAddr()), h.srcPort(), CmaHeader.asIpv6(h.dstAddr()));
        }
        // cma_ib_id_from_event treats -EAFNOSUPPORT as "assume AF_IB".
        return new NativeIb(sid, "IP version " + h.ipVersion() + " in the rdma_cm header");
    }
}
