package io.cmdemux.pathrecord.ls;

/**
 * RDMA_NL_LS numbers, each from the header that owns it. Re-checked against
 * include/uapi/rdma/rdma_netlink.h and drivers/infiniband/core/sa_query.c (ib_nl_*).
 */
public final class Ls {
    private Ls() {}

    // <linux/netlink.h>
    public static final int NETLINK_RDMA = 20;

    // rdma_netlink.h: RDMA_NL_LS is client 4, RDMA_NL_GROUP_LS is multicast group 3
    public static final int RDMA_NL_LS = 4;
    public static final int RDMA_NL_GROUP_LS = 3;
    /** The legacy bind mask of group 3 (ibacm's nl_groups = 1 << (RDMA_NL_GROUP_LS - 1)). */
    public static final int GROUP_LS_MASK = 1 << (RDMA_NL_GROUP_LS - 1);

    // rdma_netlink.h: RDMA_NL_LS_OP_*
    public static final int OP_RESOLVE = 0;
    public static final int OP_SET_TIMEOUT = 1;
    public static final int OP_IP_RESOLVE = 2;
    public static final int NUM_OPS = 3;

    /** RDMA_NL_GET_TYPE(client, op) = (client << 10) + op. */
    public static int type(int client, int op) {
        return (client << 10) + op;
    }

    /** RDMA_NL_GET_CLIENT: bits 15..10. */
    public static int client(int type) {
        return (type >> 10) & 0x3f;
    }

    /** RDMA_NL_GET_OP: bits 9..0. */
    public static int op(int type) {
        return type & 0x3ff;
    }

    public static final int TYPE_RESOLVE = type(RDMA_NL_LS, OP_RESOLVE);          // 0x1000
    public static final int TYPE_SET_TIMEOUT = type(RDMA_NL_LS, OP_SET_TIMEOUT);  // 0x1001
    public static final int TYPE_IP_RESOLVE = type(RDMA_NL_LS, OP_IP_RESOLVE);    // 0x1002

    /** rdma_netlink.h RDMA_NL_LS_F_ERR: a failed response; the kernel then asks the SA itself. */
    public static final int F_ERR = 0x0100;

    /** rdma_netlink.h RDMA_NLA_F_MANDATORY (1 << 13): a receiver that does not know the attribute must fail. */
    public static final int NLA_F_MANDATORY = 1 << 13;
    // <linux/netlink.h>
    static final int NLA_F_NESTED = 1 << 15;
    static final int NLA_F_NET_BYTEORDER = 1 << 14;
    /** rdma_netlink.h RDMA_NLA_TYPE_MASK. */
    public static final int NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER | NLA_F_MANDATORY) & 0xffff;

    // rdma_netlink.h LS_NLA_TYPE_*
    public static final int ATTR_PATH_RECORD = 1;
    public static final int ATTR_TIMEOUT = 2;
    public static final int ATTR_SERVICE_ID = 3;
    public static final int ATTR_DGID = 4;
    public static final int ATTR_SGID = 5;
    public static final int ATTR_TCLASS = 6;
    public static final int ATTR_PKEY = 7;
    public static final int ATTR_QOS_CLASS = 8;
    public static final int ATTR_IPV4 = 9;
    public static final int ATTR_IPV6 = 10;
    public static final int ATTR_MAX = 11;

    /** rdma_netlink.h LS_DEVICE_NAME_MAX. */
    public static final int DEVICE_NAME_MAX = 64;
    /** sizeof(struct rdma_ls_resolve_header): device_name[64], port_num, path_use. */
    public static final int RESOLVE_HEADER_SIZE = DEVICE_NAME_MAX + 2;
    /** sizeof(struct rdma_ls_ip_resolve_header): u32 ifindex. */
    public static final int IP_RESOLVE_HEADER_SIZE = 4;

    // sa_query.c IB_SA_LOCAL_SVC_TIMEOUT_*
    public static final int TIMEOUT_MIN_MS = 100;
    public static final int TIMEOUT_DEFAULT_MS = 2000;
    public static final int TIMEOUT_MAX_MS = 200000;

    /** sa_query.c RDMA_PRIMARY_PATH_MAX_REC_NUM: the kernel keeps at most this many records of a reply. */
    public static final int PRIMARY_PATH_MAX_REC_NUM = 3;
}
