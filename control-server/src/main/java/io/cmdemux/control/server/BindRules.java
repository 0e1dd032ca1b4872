package io.cmdemux.control.server;

import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.netdev.Address;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * The kernel's rules for binding a listening rdma_cm id, as pure functions
 * (drivers/infiniband/core/cma.c: rdma_bind_addr, cma_check_linklocal, cma_check_port;
 * drivers/infiniband/core/addr.c: rdma_translate_ip).
 */
final class BindRules {
    private BindRules() {}

    /** cma_zero_addr || cma_loopback_addr: 0.0.0.0/8, 127.0.0.0/8, ::, ::1 (and the AF_IB wildcard). */
    static boolean anyAddress(InetAddress a) {
        if (a == null) {
            return true; // we only accept the AF_IB wildcard (ib_addr_any)
        }
        if (a instanceof Inet4Address) {
            int first = a.getAddress()[0] & 0xff;
            return first == 0 || first == 127; // ipv4_is_zeronet, ipv4_is_loopback
        }
        return a.isAnyLocalAddress() || a.isLoopbackAddress();
    }

    /**
     * The address to record for a listener. A zeronet address such as 0.1.2.3 is a wildcard to
     * the kernel but not to InetAddress, which the resolver uses; recording 0.0.0.0 keeps the
     * two in step.
     */
    static InetAddress normalised(InetAddress a) {
        if (a instanceof Inet4Address && (a.getAddress()[0] & 0xff) == 0) {
            try {
                return InetAddress.getByAddress(new byte[4]);
            } catch (UnknownHostException e) {
                throw new AssertionError(e);
            }
        }
        return a;
    }

    /**
     * rdma_bind_addr's afonly: an explicit rdma_set_afonly wins; otherwise AF_INET ids are
     * afonly and AF_INET6 ids take net.ipv6.bindv6only (0 unless the namespace changed it; we
     * do not read the sysctl). AF_IB ids are never afonly.
     */
    static boolean effectiveAfonly(ListenSpec s) {
        if (s.afonlySet()) {
            return s.afonly();
        }
        return s.family() == Wire.AF_INET;
    }

    /**
     * rdma_bind_addr before the port is taken: cma_check_linklocal (an IPv6 link-local address
     * needs its scope), then rdma_translate_ip (the scope must name a device in the namespace;
     * any other non-wildcard address must be assigned there, ipv6_chk_addr with strict=1 ignoring
     * tentative addresses).
     *
     * @param ns the caller's namespace in the current topology; null when it is not known yet
     * @return the bound ifindex to record (0 unless link-local)
     */
    static int checkAddress(ListenSpec s, NetnsState ns) throws RequestRefused {
        InetAddress a = s.address();
        boolean linkLocal = a instanceof Inet6Address && a.isLinkLocalAddress();
        if (linkLocal && s.boundIfindex() == 0) {
            throw new RequestRefused(Wire.EINVAL, "the IPv6 link-local address " + text(a)
                    + " needs a scope (bound ifindex), as cma_check_linklocal requires");
        }
        if (anyAddress(a)) {
            return 0;
        }
        if (ns == null) {
            throw new RequestRefused(Wire.EAGAIN, "your namespace is not in the daemon's topology yet;"
                    + " retry in a moment");
        }
        if (linkLocal) {
            if (ns.link(s.boundIfindex()) == null) {
                throw new RequestRefused(Wire.ENODEV, "no interface with ifindex " + s.boundIfindex()
                        + " in your namespace");
            }
            if (!assigned(ns.addresses(), a, s.boundIfindex())) {
                throw new RequestRefused(Wire.EADDRNOTAVAIL, text(a) + " is not assigned to ifindex " + s.boundIfindex()
                        + " in your namespace");
            }
            return s.boundIfindex();
        }
        if (!assigned(ns.addresses(), a, 0)) {
            throw new RequestRefused(Wire.EADDRNOTAVAIL, text(a)
                    + " is not assigned to any interface in your namespace (" + ns.displayName()
                    + "); listen on the wildcard or on one of your own addresses");
        }
        return 0;
    }

    private static boolean assigned(List<Address> addresses, InetAddress a, int ifindex) {
        for (Address x : addresses) {
            if (!x.address().equals(a) || (ifindex != 0 && x.ifindex() != ifindex)) {
                continue;
            }
            if (a instanceof Inet6Address && (x.flags() & (Address.IFA_F_TENTATIVE | Address.IFA_F_DADFAILED)) != 0) {
                continue;
            }
            return true;
        }
        return false;
    }

    /**
     * cma_check_port for an id that is about to listen: a listening id is never reusable, so
     * every owner of the bind list (namespace, port space, port) is checked. Owners of different
     * families that are both afonly never clash; otherwise a wildcard on either side gives
     * EADDRNOTAVAIL, and the same address (and, for link-local, the same scope) gives EADDRINUSE.
     */
    static void checkPort(List<Listener> bindList, Listener candidate) throws RequestRefused {
        for (Listener cur : bindList) {
            if (candidate.afonly() && cur.afonly() && family(candidate) != family(cur)) {
                continue;
            }
            if (anyAddress(candidate.address()) || anyAddress(cur.address())) {
                throw new RequestRefused(Wire.EADDRNOTAVAIL, describe(candidate) + " overlaps " + describe(cur)
                        + " (listener " + cur.bindOrder() + ", " + cur.owner()
                        + "): a wildcard shares its port with no one");
            }
            if (sameAddress(candidate, cur)) {
                throw new RequestRefused(Wire.EADDRINUSE, describe(candidate) + " is already bound (listener "
                        + cur.bindOrder() + ", " + cur.owner() + ")");
            }
        }
    }

    /** cma_addr_cmp == 0: same family and address; link-local IPv6 also needs the same scope. */
    private static boolean sameAddress(Listener a, Listener b) {
        if (family(a) != family(b)) {
            return false;
        }
        if (a.address() == null) {
            return true;
        }
        if (!a.address().equals(b.address())) {
            return false;
        }
        return !(a.address() instanceof Inet6Address && a.address().isLinkLocalAddress())
                || a.boundIfindex() == b.boundIfindex();
    }

    private static int family(Listener l) {
        if (l.address() == null) {
            return Wire.AF_IB;
        }
        return l.address() instanceof Inet4Address ? Wire.AF_INET : Wire.AF_INET6;
    }

    static String describe(Listener l) {
        String addr = l.address() == null ? "ib:*" : (l.address() instanceof Inet6Address ? "[" + text(l.address())
                + "]" : text(l.address()));
        return l.portSpace().cliName() + " " + addr + ":" + l.port();
    }

    static String text(InetAddress a) {
        return io.cmdemux.netdev.InetAddresses.toText(a);
    }
}
