package io.cmdemux.control.protocol;

import io.cmdemux.ingress.wire.PortSpace;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * What a consumer asks for in LISTEN: rdma_bind_addr + rdma_listen on (port space, address, port).
 *
 * @param family AF_INET, AF_INET6 or AF_IB ({@link Wire}); AF_IB has no address (only its wildcard is supported)
 * @param port 0 asks for an ephemeral port, as rdma_bind_addr does
 * @param afonlySet whether {@code afonly} was chosen explicitly; otherwise the kernel's default
 *     applies (1 for AF_INET, net.ipv6.bindv6only for AF_INET6)
 * @param boundIfindex the scope (sin6_scope_id) of an IPv6 link-local address, else 0
 */
public record ListenSpec(int family, PortSpace portSpace, int port, InetAddress address, boolean afonlySet,
        boolean afonly, int boundIfindex) {
    public ListenSpec {
        Objects.requireNonNull(portSpace, "portSpace");
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("port " + port + " is not 0-65535");
        }
        if (family == Wire.AF_INET && !(address instanceof Inet4Address)
                || family == Wire.AF_INET6 && !(address instanceof Inet6Address)
                || family == Wire.AF_IB && address != null
                || family != Wire.AF_INET && family != Wire.AF_INET6 && family != Wire.AF_IB) {
            throw new IllegalArgumentException("address " + address + " does not fit family " + family);
        }
    }

    /** An IP listener with the kernel's default afonly and no scope. */
    public static ListenSpec of(PortSpace ps, InetAddress address, int port) {
        return new ListenSpec(address instanceof Inet4Address ? Wire.AF_INET : Wire.AF_INET6, ps, port, address,
                false, false, 0);
    }

    public static ListenSpec afIb(PortSpace ps, int port) {
        return new ListenSpec(Wire.AF_IB, ps, port, null, false, false, 0);
    }

    public ListenSpec withAfonly(boolean value) {
        return new ListenSpec(family, portSpace, port, address, true, value, boundIfindex);
    }

    public ListenSpec withBoundIfindex(int ifindex) {
        return new ListenSpec(family, portSpace, port, address, afonlySet, afonly, ifindex);
    }
}
