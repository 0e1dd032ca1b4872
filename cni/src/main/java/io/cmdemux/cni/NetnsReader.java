package io.cmdemux.cni;

import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.Rtnl;
import io.cmdemux.netdev.RtnlClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads one pod namespace's links and addresses from a socket opened inside it (a NetnsExecutor thread). */
final class NetnsReader {
    private NetnsReader() {}

    static FreshNetns read(NetnsExecutor executor, String path) throws IOException {
        NetnsId id = NetnsDiscovery.idOf(Path.of(path));
        return executor.call(path, () -> {
            try (RtnlClient c = RtnlClient.open()) {
                List<Link> links = new ArrayList<>();
                for (NlMessage m : c.dumpLinks()) {
                    links.add(Rtnl.decodeLink(m));
                }
                List<Address> addresses = new ArrayList<>();
                for (NlMessage m : c.dumpAddresses()) {
                    addresses.add(Rtnl.decodeAddress(m));
                }
                return new FreshNetns(id, links, addresses);
            } catch (MalformedException e) {
                throw new IOException("undecodable rtnetlink dump of " + path + ": " + e.getMessage(), e);
            }
        });
    }
}
