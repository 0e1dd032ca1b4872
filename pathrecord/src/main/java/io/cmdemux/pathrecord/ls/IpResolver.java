package io.cmdemux.pathrecord.ls;

import io.cmdemux.gid.Gid;
import java.net.InetAddress;
import java.util.Map;
import java.util.Optional;

/**
 * Answers RDMA_NL_LS_OP_IP_RESOLVE: the GID behind an IP the kernel reaches through a gateway
 * (addr.c ib_nl_fetch_ha). Without an answer the responder says F_ERR and the kernel's address
 * resolution fails for that destination, as it would with no responder at all.
 */
public interface IpResolver {
    Optional<Gid> resolve(int ifindex, InetAddress ip);

    static IpResolver none() {
        return (ifindex, ip) -> Optional.empty();
    }

    /** A fixed map, from the configuration's "ipToGid". */
    static IpResolver of(Map<InetAddress, Gid> map) {
        Map<InetAddress, Gid> m = Map.copyOf(map);
        return (ifindex, ip) -> Optional.ofNullable(m.get(ip));
    }
}
