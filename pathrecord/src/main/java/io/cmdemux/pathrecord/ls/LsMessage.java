package io.cmdemux.pathrecord.ls;

import io.cmdemux.gid.Gid;
import io.cmdemux.pathrecord.PathRecordData;
import java.net.InetAddress;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** One decoded RDMA_NL_LS message, in either direction. Every variant carries the nlmsghdr's seq. */
public sealed interface LsMessage {
    int seq();

    /** The nlmsghdr's nlmsg_pid: 0 in everything the kernel sends. */
    int portId();

    /**
     * RDMA_NL_LS_OP_RESOLVE from the kernel (sa_query.c ib_nl_make_request): the family header and
     * one attribute per component-mask bit the query set. Absent attributes are empty / null.
     *
     * @param pathUse the raw path_use byte; {@link #use()} maps it the way the kernel's switch does
     * @param ignoredAttributes attributes without the mandatory bit that this decoder does not know
     */
    record ResolveRequest(
            int seq,
            int portId,
            String device,
            int port,
            int pathUse,
            OptionalLong serviceId,
            Gid dgid,
            Gid sgid,
            OptionalInt tclass,
            OptionalInt pkey,
            OptionalInt qosClass,
            int ignoredAttributes) implements LsMessage {
        public ResolveRequest {
            Objects.requireNonNull(device, "device");
            serviceId = serviceId == null ? OptionalLong.empty() : serviceId;
            tclass = tclass == null ? OptionalInt.empty() : tclass;
            pkey = pkey == null ? OptionalInt.empty() : pkey;
            qosClass = qosClass == null ? OptionalInt.empty() : qosClass;
        }

        public PathUse use() {
            return PathUse.of(pathUse);
        }
    }

    /**
     * RDMA_NL_LS_OP_SET_TIMEOUT, from a responder to the kernel (sa_query.c ib_nl_handle_set_timeout).
     *
     * @param flags the nlmsghdr flags; the kernel refuses it without NLM_F_REQUEST
     * @param timeoutMs the LS_NLA_TYPE_TIMEOUT value as sent, before the kernel clamps it to 100..200000
     */
    record SetTimeout(int seq, int portId, int flags, OptionalInt timeoutMs) implements LsMessage {}

    /**
     * RDMA_NL_LS_OP_IP_RESOLVE from the kernel (addr.c ib_nl_ip_send_msg): which GID serves this IP,
     * asked for an IB destination behind a gateway.
     */
    record IpResolveRequest(int seq, int portId, int ifindex, InetAddress ip) implements LsMessage {}

    /**
     * A RESOLVE reply as the kernel reads it: the flags (RDMA_NL_LS_F_ERR or not) and every
     * attribute of type exactly LS_NLA_TYPE_PATH_RECORD with 72 bytes, in order.
     *
     * @param otherAttributes attributes of any other type or length, which the kernel skips
     */
    record ResolveResponse(int seq, int portId, int flags, List<PathRecordData> records, int otherAttributes)
            implements LsMessage {
        public ResolveResponse {
            records = List.copyOf(records);
        }

        public boolean error() {
            return (flags & Ls.F_ERR) != 0;
        }
    }

    /** An IP_RESOLVE reply: the LS_NLA_TYPE_DGID attribute (addr.c ib_nl_process_good_ip_rsep), or null. */
    record IpResolveResponse(int seq, int portId, int flags, Gid dgid) implements LsMessage {
        public boolean error() {
            return (flags & Ls.F_ERR) != 0;
        }
    }
}
