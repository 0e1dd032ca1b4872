package io.cmdemux.pathrecord;

import io.cmdemux.gid.Gid;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a path is asked for: the port it leaves from and the PathRecord components the query fixes
 * (the attributes of an RDMA_NL_LS RESOLVE request, or the CLI's options). Absent components are
 * wildcards, exactly as a zero component-mask bit is for the SA.
 *
 * @param reversible the path must work both ways (path_use ALL or GMP); adds REVERSIBLE to the query
 * @param dlid a destination LID to ask for, when an alternate path is wanted through other path bits
 */
public record PathQuery(
        String device,
        int port,
        Gid sgid,
        Gid dgid,
        OptionalInt pkey,
        OptionalLong serviceId,
        OptionalInt tclass,
        OptionalInt qosClass,
        boolean reversible,
        OptionalInt dlid) {

    public PathQuery {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(dgid, "dgid");
        pkey = pkey == null ? OptionalInt.empty() : pkey;
        serviceId = serviceId == null ? OptionalLong.empty() : serviceId;
        tclass = tclass == null ? OptionalInt.empty() : tclass;
        qosClass = qosClass == null ? OptionalInt.empty() : qosClass;
        dlid = dlid == null ? OptionalInt.empty() : dlid;
    }

    public static PathQuery of(String device, int port, Gid sgid, Gid dgid) {
        return new PathQuery(device, port, sgid, dgid, OptionalInt.empty(), OptionalLong.empty(), OptionalInt.empty(),
                OptionalInt.empty(), true, OptionalInt.empty());
    }

    public PathQuery withPkey(int p) {
        return new PathQuery(
                device, port, sgid, dgid, OptionalInt.of(p), serviceId, tclass, qosClass, reversible, dlid);
    }

    public PathQuery withServiceId(long s) {
        return new PathQuery(device, port, sgid, dgid, pkey, OptionalLong.of(s), tclass, qosClass, reversible, dlid);
    }

    public PathQuery withReversible(boolean r) {
        return new PathQuery(device, port, sgid, dgid, pkey, serviceId, tclass, qosClass, r, dlid);
    }

    public PathQuery withDlid(int d) {
        return new PathQuery(
                device, port, sgid, dgid, pkey, serviceId, tclass, qosClass, reversible, OptionalInt.of(d));
    }

    /** The same question the other way round: from DGID to SGID (the inbound, or return, path). */
    public PathQuery reversed() {
        return new PathQuery(device, port, dgid, sgid, pkey, serviceId, tclass, qosClass, false, OptionalInt.empty());
    }
}
