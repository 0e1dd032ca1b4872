package io.cmdemux.cli.active;

import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.Neighbor;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.Route;
import io.cmdemux.netdev.Rtnl;
import io.cmdemux.netdev.RtnlClient;
import java.io.IOException;
import java.math.BigInteger;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.List;

/**
 * Where a frame to {@code dst} leaves this namespace: interface, our source address and MAC, and
 * the next hop's MAC. The kernel picks the route (a connected UDP socket); the neighbour table,
 * filled by a probe datagram to the discard port, gives the MAC.
 */
public record NextHop(int ifindex, String ifname, InetAddress src, HwAddr srcMac, InetAddress gateway, HwAddr dstMac) {

    public static NextHop resolve(InetAddress dst, long timeoutMillis) throws IOException {
        InetAddress src;
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(new InetSocketAddress(dst, 9));
            src = probe.getLocalAddress();
            if (src == null || src.isAnyLocalAddress()) {
                throw new IOException("no route to " + InetAddresses.toText(dst) + " in this namespace");
            }
            NetworkInterface nif = NetworkInterface.getByInetAddress(src);
            if (nif == null || nif.getHardwareAddress() == null) {
                throw new IOException("the route to " + InetAddresses.toText(dst)
                        + " leaves through an interface without a MAC");
            }
            try (RtnlClient rtnl = RtnlClient.open()) {
                InetAddress hop = gateway(rtnl, dst, nif.getIndex());
                InetAddress target = hop != null ? hop : dst;
                long deadline = System.currentTimeMillis() + timeoutMillis;
                while (true) {
                    HwAddr mac = neighbor(rtnl, target, nif.getIndex());
                    if (mac != null) {
                        return new NextHop(nif.getIndex(), nif.getName(), src,
                                HwAddr.of(nif.getHardwareAddress()), hop, mac);
                    }
                    if (System.currentTimeMillis() > deadline) {
                        throw new IOException("no neighbour entry for " + InetAddresses.toText(target) + " on "
                                + nif.getName() + " (does anything answer ARP/ND for it?)");
                    }
                    // Any datagram makes the kernel resolve the next hop (ARP or neighbour solicitation).
                    probe.send(new DatagramPacket(new byte[1], 1));
                    sleep(50);
                }
            }
        }
    }

    private static HwAddr neighbor(RtnlClient rtnl, InetAddress target, int ifindex) throws IOException {
        for (NlMessage m : rtnl.dumpNeighbors()) {
            try {
                Neighbor n = Rtnl.decodeNeighbor(m);
                if (n != null && n.ifindex() == ifindex && n.address().equals(target) && n.usable()) {
                    return n.lladdr();
                }
            } catch (MalformedException e) {
                throw new IOException("neighbour dump: " + e.getMessage(), e);
            }
        }
        return null;
    }

    /** The gateway of the longest-prefix main-table route to dst on this interface, or null when on-link. */
    private static InetAddress gateway(RtnlClient rtnl, InetAddress dst, int ifindex) throws IOException {
        Route best = null;
        int bits = dst instanceof Inet4Address ? 32 : 128;
        for (NlMessage m : rtnl.dumpRoutes()) {
            Route r;
            try {
                r = Rtnl.decodeRoute(m);
            } catch (MalformedException e) {
                continue;
            }
            if (r == null || r.table() != Route.RT_TABLE_MAIN || r.oif() != ifindex || r.type() != Route.RTN_UNICAST
                    || (r.family() == Rtnl.AF_INET) != (dst instanceof Inet4Address)) {
                continue;
            }
            boolean match = r.dst() == null || prefixContains(r.dst(), r.dstLen(), dst, bits);
            if (match && (best == null || r.dstLen() > best.dstLen())) {
                best = r;
            }
        }
        return best == null ? null : best.gateway();
    }

    private static boolean prefixContains(InetAddress net, int len, InetAddress ip, int bits) {
        if (net.getAddress().length != ip.getAddress().length) {
            return false;
        }
        BigInteger mask = len == 0 ? BigInteger.ZERO
                : BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE)
                .xor(BigInteger.ONE.shiftLeft(bits - len).subtract(BigInteger.ONE));
        return new BigInteger(1, net.getAddress()).and(mask).equals(new BigInteger(1, ip.getAddress()).and(mask));
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    static List<String> describe(NextHop h) {
        return List.of(h.ifname(), InetAddresses.toText(h.src()), h.srcMac().toString(), h.dstMac().toString());
    }
}
