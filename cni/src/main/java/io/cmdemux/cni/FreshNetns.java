package io.cmdemux.cni;

import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.Link;
import java.net.InetAddress;
import java.util.List;

/**
 * A pod's namespace read from the kernel just now: the ground truth for "is this interface and
 * this address there", which a live view that lags by a few notifications could get wrong both ways.
 */
public record FreshNetns(NetnsId id, List<Link> links, List<Address> addresses) {
    public FreshNetns {
        links = List.copyOf(links);
        addresses = List.copyOf(addresses);
    }

    public Link link(String name) {
        for (Link l : links) {
            if (l.name().equals(name)) {
                return l;
            }
        }
        return null;
    }

    public boolean has(int ifindex, InetAddress ip) {
        for (Address a : addresses) {
            if (a.ifindex() == ifindex && a.address().equals(ip)) {
                return true;
            }
        }
        return false;
    }
}
