package io.cmdemux.cni;

import java.net.InetAddress;
import java.util.List;

/** What the plugins before us say one interface in the pod's namespace is: its name and its IPs. */
record ExpectedInterface(String name, List<InetAddress> ips) {
    ExpectedInterface {
        ips = List.copyOf(ips);
    }
}
