package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import java.util.List;
import java.util.Optional;

/**
 * One port of an RDMA device. Its GID entries are kept in index order.
 *
 * @param netdev the RoCE port's net device (for a soft port, the netdev it was defined on); null on IB
 * @param ipoibParents the IPoIB parent devices on this IB port, in the device's list order; their
 *     children are found through the topology (IFLA_LINK)
 */
public record RdmaPort(
        int number,
        LinkLayer linkLayer,
        String state,
        long portGuid,
        List<Long> aliasGuids,
        List<GidEntry> gids,
        PkeyTable pkeys,
        LinkRef netdev,
        List<LinkRef> ipoibParents) {

    public enum LinkLayer { INFINIBAND, ETHERNET }

    public RdmaPort {
        aliasGuids = List.copyOf(aliasGuids);
        gids = GidList.of(gids);
        ipoibParents = List.copyOf(ipoibParents);
    }

    public boolean roce() {
        return linkLayer == LinkLayer.ETHERNET;
    }

    /** The entries whose GID is {@code gid}, lowest index first (the kernel's find order). */
    public List<GidEntry> entriesFor(Gid gid) {
        return ((GidList) gids).withGid(gid);
    }

    public Optional<GidEntry> gid(int index) {
        for (GidEntry e : gids) {
            if (e.index() == index) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
