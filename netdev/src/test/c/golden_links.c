/*
 * Golden rtnetlink bytes for devices this machine's kernel cannot create (ipvlan, bond and its
 * slaves, vlan, IPoIB) and for the other messages cmdemux decodes, built only from the kernel's
 * uapi definitions in /usr/include/linux (package linux-libc-dev): struct nlmsghdr, ifinfomsg,
 * ifaddrmsg, rtmsg, rtgenmsg, rtattr, rtnexthop, nlmsgerr, the NLMSG_* / RTA_* / RTNH_* macros
 * and the IFLA_* / IFA_* / RTA_* / NETNSA_* numbers.
 *
 * Messages are laid out the way the kernel's fill functions write them:
 *   links     net/core/rtnetlink.c rtnl_fill_ifinfo() (mainline order, IFLA_LINK after
 *             IFLA_LINK_NETNSID in rtnl_fill_link_netnsid()), rtnl_link_fill() (IFLA_LINKINFO,
 *             IFLA_INFO_DATA and IFLA_INFO_SLAVE_DATA without NLA_F_NESTED: nla_nest_start_noflag),
 *             rtnl_fill_prop_list() (IFLA_PROP_LIST with NLA_F_NESTED: nla_nest_start);
 *             kind data from ipvlan_nl_fillinfo(), bond_fill_info(), bond_fill_slave_info(),
 *             vlan_fill_info(), ipoib_fill_info(), macvlan_fill_info();
 *   addresses net/ipv4/devinet.c inet_fill_ifaddr(), net/ipv6/addrconf.c inet6_fill_ifaddr();
 *   routes    net/ipv4/fib_semantics.c fib_dump_info(), net/ipv6/route.c rt6_fill_node();
 *   nsids     net/core/net_namespace.c rtnl_net_fill();
 *   errors    net/netlink/af_netlink.c netlink_ack() with extended ack.
 * Requests are laid out as iproute2 / libmnl build them (NLMSG_LENGTH of the family header, then
 * attributes at NLMSG_ALIGN, nests with NLA_F_NESTED as addattr_nest() sets it).
 *
 * Output: one line per message, tab separated:
 *   <class> <name> <hex bytes> <key=value ...>
 * where class is link, addr, route, nsid, error or request. The key=value pairs are the values
 * this program put into the message, printed from the same variables and uapi constants, so that
 * the Java test's expectations come from here and not from the decoder it checks. Values never
 * contain spaces; "-" means absent.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <linux/if_bonding.h>
#include <linux/if_ether.h>
#include <linux/if_infiniband.h>
#include <linux/if_link.h>
#include <linux/if_vlan.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#define BUF_SIZE 8192

/* One message under construction, in a zeroed, 4-aligned buffer: padding bytes stay zero, as in
 * the kernel's skbs (nla_put zeroes the alignment padding). */
static union {
    struct nlmsghdr n;
    char bytes[BUF_SIZE];
} msg;

static struct nlmsghdr *begin(int type, int flags, unsigned seq, unsigned pid, size_t family_header)
{
    memset(&msg, 0, sizeof(msg));
    msg.n.nlmsg_len = NLMSG_LENGTH(family_header);
    msg.n.nlmsg_type = type;
    msg.n.nlmsg_flags = flags;
    msg.n.nlmsg_seq = seq;
    msg.n.nlmsg_pid = pid;
    return &msg.n;
}

/* nla_put(): header, payload, zero padding to RTA_ALIGNTO; the message grows by RTA_ALIGN(len). */
static struct rtattr *put(struct nlmsghdr *n, unsigned short type, const void *data, size_t len)
{
    struct rtattr *rta = (struct rtattr *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));
    if (NLMSG_ALIGN(n->nlmsg_len) + RTA_SPACE(len) > BUF_SIZE) {
        fprintf(stderr, "golden_links: message buffer too small\n");
        exit(2);
    }
    rta->rta_type = type;
    rta->rta_len = RTA_LENGTH(len);
    if (len)
        memcpy(RTA_DATA(rta), data, len);
    n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(rta->rta_len);
    return rta;
}

static void put_u8(struct nlmsghdr *n, unsigned short type, uint8_t v) { put(n, type, &v, sizeof(v)); }
static void put_u16(struct nlmsghdr *n, unsigned short type, uint16_t v) { put(n, type, &v, sizeof(v)); }
static void put_u32(struct nlmsghdr *n, unsigned short type, uint32_t v) { put(n, type, &v, sizeof(v)); }
static void put_s32(struct nlmsghdr *n, unsigned short type, int32_t v) { put(n, type, &v, sizeof(v)); }
/* nla_put_be16(): network byte order whatever the host is. */
static void put_be16(struct nlmsghdr *n, unsigned short type, uint16_t v)
{
    uint16_t be = htons(v);
    put(n, type, &be, sizeof(be));
}
/* nla_put_string(): the terminating NUL is part of the payload. */
static void put_str(struct nlmsghdr *n, unsigned short type, const char *s) { put(n, type, s, strlen(s) + 1); }
static struct rtattr *nest(struct nlmsghdr *n, unsigned short type) { return put(n, type, NULL, 0); }
/* nla_nest_end(): the nest covers everything up to the (aligned) tail, padding included. */
static void nest_end(struct nlmsghdr *n, struct rtattr *start)
{
    start->rta_len = (unsigned short)((char *)n + n->nlmsg_len - (char *)start);
}

static void print_hex(const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        printf("%02x", b[i]);
}

static void print_mac(const unsigned char *b, size_t len)
{
    if (len == 0) {
        printf("-");
        return;
    }
    for (size_t i = 0; i < len; i++)
        printf(i ? ":%02x" : "%02x", b[i]);
}

/* Values are space-free tokens: a space is written as %20 and decoded by the test. */
static void print_token(const char *s)
{
    for (; *s; s++) {
        if (*s == ' ')
            printf("%%20");
        else
            putchar(*s);
    }
}

static void emit(const char *class, const char *name, struct nlmsghdr *n)
{
    printf("%s\t%s\t", class, name);
    print_hex(n, n->nlmsg_len);
    printf("\t");
}

/* ------------------------------------------------------------------ links */

enum kind { K_NONE, K_IPVLAN, K_BOND, K_VLAN, K_IPOIB, K_MACVLAN, K_VETH, K_OTHER };

struct link_desc {
    const char *name;          /* the test's name for this message */
    int ifindex;
    const char *ifname;
    unsigned short arphrd;
    unsigned flags;            /* ifi_flags */
    unsigned char operstate;
    unsigned mtu;
    int iflink;                /* dev_get_iflink(): our own ifindex when there is no parent */
    int link_netnsid;          /* IFLA_LINK_NETNSID, or -1 when the parent is in our namespace */
    int master;                /* IFLA_MASTER, 0 for none */
    unsigned char addr[INFINIBAND_ALEN];
    unsigned char brd[INFINIBAND_ALEN];
    size_t addr_len;
    const char *altnames[2];
    enum kind kind;
    const char *kind_name;     /* IFLA_INFO_KIND */
    /* kind data */
    uint16_t ipvlan_mode, ipvlan_flags;
    uint8_t bond_mode;
    uint32_t bond_active_slave; /* 0: no active slave, attribute absent (bond_fill_info) */
    uint16_t vlan_id, vlan_proto;
    uint32_t vlan_flags;
    uint16_t ipoib_pkey, ipoib_mode, ipoib_umcast;
    uint32_t macvlan_mode;
    uint16_t macvlan_flags;
    /* bond slave data (IFLA_INFO_SLAVE_KIND "bond") */
    int is_bond_slave;
    uint8_t slave_state, slave_mii_status;
    uint32_t slave_link_failure_count;
    unsigned char slave_perm_hwaddr[ETH_ALEN];
    uint16_t slave_queue_id;
};

static void fill_kind_data(struct nlmsghdr *n, const struct link_desc *d)
{
    switch (d->kind) {
    case K_IPVLAN: /* ipvlan_nl_fillinfo() */
        put_u16(n, IFLA_IPVLAN_MODE, d->ipvlan_mode);
        put_u16(n, IFLA_IPVLAN_FLAGS, d->ipvlan_flags);
        break;
    case K_BOND: { /* bond_fill_info(), in its order, with the defaults of a fresh bond */
        put_u8(n, IFLA_BOND_MODE, d->bond_mode);
        if (d->bond_active_slave)
            put_u32(n, IFLA_BOND_ACTIVE_SLAVE, d->bond_active_slave);
        put_u32(n, IFLA_BOND_MIIMON, 100);
        put_u32(n, IFLA_BOND_UPDELAY, 0);
        put_u32(n, IFLA_BOND_DOWNDELAY, 0);
        put_u32(n, IFLA_BOND_PEER_NOTIF_DELAY, 0);
        put_u8(n, IFLA_BOND_USE_CARRIER, 1);
        put_u32(n, IFLA_BOND_ARP_INTERVAL, 0);
        put_u32(n, IFLA_BOND_ARP_VALIDATE, 0);
        put_u32(n, IFLA_BOND_ARP_ALL_TARGETS, 0);
        put_u8(n, IFLA_BOND_PRIMARY_RESELECT, 0);
        put_u8(n, IFLA_BOND_FAIL_OVER_MAC, 0);
        put_u8(n, IFLA_BOND_XMIT_HASH_POLICY, 0);
        put_u32(n, IFLA_BOND_RESEND_IGMP, 1);
        put_u8(n, IFLA_BOND_NUM_PEER_NOTIF, 1);
        put_u8(n, IFLA_BOND_ALL_SLAVES_ACTIVE, 0);
        put_u32(n, IFLA_BOND_MIN_LINKS, 0);
        put_u32(n, IFLA_BOND_LP_INTERVAL, 1);
        put_u32(n, IFLA_BOND_PACKETS_PER_SLAVE, 1);
        put_u8(n, IFLA_BOND_AD_LACP_ACTIVE, 1);
        put_u8(n, IFLA_BOND_AD_LACP_RATE, 0);
        put_u8(n, IFLA_BOND_AD_SELECT, 0);
        put_u8(n, IFLA_BOND_TLB_DYNAMIC_LB, 1);
        put_u8(n, IFLA_BOND_MISSED_MAX, 2);
        break;
    }
    case K_VLAN: { /* vlan_fill_info(): protocol first, big-endian */
        put_be16(n, IFLA_VLAN_PROTOCOL, d->vlan_proto);
        put_u16(n, IFLA_VLAN_ID, d->vlan_id);
        if (d->vlan_flags) {
            struct ifla_vlan_flags f = { .flags = d->vlan_flags, .mask = ~0u };
            put(n, IFLA_VLAN_FLAGS, &f, sizeof(f));
        }
        /* One ingress priority mapping, so that the decoder has a nest to step over. */
        struct rtattr *q = nest(n, IFLA_VLAN_INGRESS_QOS);
        struct ifla_vlan_qos_mapping m = { .from = 1, .to = 3 };
        put(n, IFLA_VLAN_QOS_MAPPING, &m, sizeof(m));
        nest_end(n, q);
        break;
    }
    case K_IPOIB: /* ipoib_fill_info() */
        put_u16(n, IFLA_IPOIB_PKEY, d->ipoib_pkey);
        put_u16(n, IFLA_IPOIB_MODE, d->ipoib_mode);
        put_u16(n, IFLA_IPOIB_UMCAST, d->ipoib_umcast);
        break;
    case K_MACVLAN: /* macvlan_fill_info() */
        put_u32(n, IFLA_MACVLAN_MODE, d->macvlan_mode);
        put_u16(n, IFLA_MACVLAN_FLAGS, d->macvlan_flags);
        put_u32(n, IFLA_MACVLAN_MACADDR_COUNT, 0);
        put_u32(n, IFLA_MACVLAN_BC_QUEUE_LEN, 1000);
        put_u32(n, IFLA_MACVLAN_BC_QUEUE_LEN_USED, 1000);
        break;
    default:
        break;
    }
}

static int has_info_data(enum kind k)
{
    /* veth has no fill_info; wireguard neither. */
    return k == K_IPVLAN || k == K_BOND || k == K_VLAN || k == K_IPOIB || k == K_MACVLAN;
}

static void build_link(struct nlmsghdr *n, const struct link_desc *d)
{
    struct ifinfomsg *ifi = NLMSG_DATA(n);
    ifi->ifi_family = AF_UNSPEC;
    ifi->ifi_type = d->arphrd;
    ifi->ifi_index = d->ifindex;
    ifi->ifi_flags = d->flags;
    ifi->ifi_change = 0;

    /* rtnl_fill_ifinfo() order */
    put_str(n, IFLA_IFNAME, d->ifname);
    put_u32(n, IFLA_TXQLEN, d->arphrd == ARPHRD_INFINIBAND ? 256 : 1000);
    put_u8(n, IFLA_OPERSTATE, d->operstate);
    put_u8(n, IFLA_LINKMODE, 0);
    put_u32(n, IFLA_MTU, d->mtu);
    put_u32(n, IFLA_MIN_MTU, 68);
    put_u32(n, IFLA_MAX_MTU, 65535);
    put_u32(n, IFLA_GROUP, 0);
    put_u32(n, IFLA_PROMISCUITY, 0);
    put_u32(n, IFLA_ALLMULTI, 0);
    put_u32(n, IFLA_NUM_TX_QUEUES, 1);
    put_u32(n, IFLA_GSO_MAX_SEGS, 65535);
    put_u32(n, IFLA_GSO_MAX_SIZE, 65536);
    put_u32(n, IFLA_GRO_MAX_SIZE, 65536);
    put_u32(n, IFLA_TSO_MAX_SIZE, 65536);
    put_u32(n, IFLA_TSO_MAX_SEGS, 65535);
    put_u32(n, IFLA_NUM_RX_QUEUES, 1);
    if (d->master) /* put_master_ifindex() */
        put_u32(n, IFLA_MASTER, d->master);
    put_u8(n, IFLA_CARRIER, (d->flags & IFF_LOWER_UP) ? 1 : 0);
    put_str(n, IFLA_QDISC, "noqueue");
    put_u32(n, IFLA_CARRIER_CHANGES, 2);
    put_u32(n, IFLA_CARRIER_UP_COUNT, 1);
    put_u32(n, IFLA_CARRIER_DOWN_COUNT, 1);
    put_u8(n, IFLA_PROTO_DOWN, 0); /* rtnl_fill_proto_down() */
    { /* rtnl_fill_link_ifmap() */
        struct rtnl_link_ifmap map;
        memset(&map, 0, sizeof(map));
        put(n, IFLA_MAP, &map, sizeof(map));
    }
    if (d->addr_len) {
        put(n, IFLA_ADDRESS, d->addr, d->addr_len);
        put(n, IFLA_BROADCAST, d->brd, d->addr_len);
    }
    { /* rtnl_fill_stats(): IFLA_STATS64 then IFLA_STATS, all zero here */
        struct rtnl_link_stats64 s64;
        struct rtnl_link_stats s32;
        memset(&s64, 0, sizeof(s64));
        memset(&s32, 0, sizeof(s32));
        put(n, IFLA_STATS64, &s64, sizeof(s64));
        put(n, IFLA_STATS, &s32, sizeof(s32));
    }
    if (d->kind != K_NONE || d->is_bond_slave) { /* rtnl_link_fill() */
        struct rtattr *li = nest(n, IFLA_LINKINFO);
        if (d->kind != K_NONE) {
            put_str(n, IFLA_INFO_KIND, d->kind_name);
            if (has_info_data(d->kind)) {
                struct rtattr *data = nest(n, IFLA_INFO_DATA);
                fill_kind_data(n, d);
                nest_end(n, data);
            }
        }
        if (d->is_bond_slave) { /* rtnl_link_slave_info_fill() + bond_fill_slave_info() */
            put_str(n, IFLA_INFO_SLAVE_KIND, "bond");
            struct rtattr *sd = nest(n, IFLA_INFO_SLAVE_DATA);
            put_u8(n, IFLA_BOND_SLAVE_STATE, d->slave_state);
            put_u8(n, IFLA_BOND_SLAVE_MII_STATUS, d->slave_mii_status);
            put_u32(n, IFLA_BOND_SLAVE_LINK_FAILURE_COUNT, d->slave_link_failure_count);
            put(n, IFLA_BOND_SLAVE_PERM_HWADDR, d->slave_perm_hwaddr, ETH_ALEN);
            put_u16(n, IFLA_BOND_SLAVE_QUEUE_ID, d->slave_queue_id);
            put_s32(n, IFLA_BOND_SLAVE_PRIO, 0);
            nest_end(n, sd);
        }
        nest_end(n, li);
    }
    /* rtnl_fill_link_netnsid(): IFLA_LINK_NETNSID when the parent is in another namespace, then
     * nla_put_iflink(), which sends IFLA_LINK when it differs from ifindex, or always (force) when
     * there is a link-netnsid: across namespaces the two indexes may be equal. */
    if (d->link_netnsid >= 0)
        put_s32(n, IFLA_LINK_NETNSID, d->link_netnsid);
    if (d->link_netnsid >= 0 || d->iflink != d->ifindex)
        put_u32(n, IFLA_LINK, d->iflink);
    { /* rtnl_fill_link_af(): an IFLA_AF_SPEC nest with an empty AF_INET entry, to step over */
        struct rtattr *af = nest(n, IFLA_AF_SPEC);
        struct rtattr *inet = nest(n, AF_INET);
        nest_end(n, inet);
        nest_end(n, af);
    }
    if (d->altnames[0]) { /* rtnl_fill_prop_list(): nla_nest_start() sets NLA_F_NESTED */
        struct rtattr *pl = nest(n, IFLA_PROP_LIST | NLA_F_NESTED);
        for (int i = 0; i < 2 && d->altnames[i]; i++)
            put_str(n, IFLA_ALT_IFNAME, d->altnames[i]);
        nest_end(n, pl);
    }
}

/* iproute2's words for the numbers (ip/iplink_ipvlan.c, iplink_bond.c, iplink_bond_slave.c,
 * iplink_vlan.c with ll_proto_n2a(), iplink_ipoib.c, iplink_macvlan.c). */
static const char *ipvlan_mode_name(unsigned m)
{
    return m == IPVLAN_MODE_L2 ? "l2" : m == IPVLAN_MODE_L3 ? "l3" : m == IPVLAN_MODE_L3S ? "l3s" : "unknown";
}
static const char *ipvlan_flags_name(unsigned f)
{
    return (f & IPVLAN_F_PRIVATE) ? "private" : (f & IPVLAN_F_VEPA) ? "vepa" : "bridge";
}
static const char *bond_mode_name(unsigned m)
{
    static const char *names[] = {
        [BOND_MODE_ROUNDROBIN] = "balance-rr", [BOND_MODE_ACTIVEBACKUP] = "active-backup",
        [BOND_MODE_XOR] = "balance-xor", [BOND_MODE_BROADCAST] = "broadcast",
        [BOND_MODE_8023AD] = "802.3ad", [BOND_MODE_TLB] = "balance-tlb", [BOND_MODE_ALB] = "balance-alb",
    };
    return m < sizeof(names) / sizeof(names[0]) ? names[m] : "unknown";
}
static const char *slave_state_name(unsigned s)
{
    return s == BOND_STATE_ACTIVE ? "ACTIVE" : s == BOND_STATE_BACKUP ? "BACKUP" : "unknown";
}
static const char *vlan_proto_name(unsigned p)
{
    return p == ETH_P_8021Q ? "802.1Q" : p == ETH_P_8021AD ? "802.1ad" : "unknown";
}
static const char *ipoib_mode_name(unsigned m)
{
    return m == IPOIB_MODE_DATAGRAM ? "datagram" : m == IPOIB_MODE_CONNECTED ? "connected" : "unknown";
}
static const char *macvlan_mode_name(unsigned m)
{
    switch (m) {
    case MACVLAN_MODE_PRIVATE: return "private";
    case MACVLAN_MODE_VEPA: return "vepa";
    case MACVLAN_MODE_BRIDGE: return "bridge";
    case MACVLAN_MODE_PASSTHRU: return "passthru";
    case MACVLAN_MODE_SOURCE: return "source";
    default: return "unknown";
    }
}

static void emit_link(const struct link_desc *d)
{
    struct nlmsghdr *n = begin(RTM_NEWLINK, NLM_F_MULTI, 1700000001, 4242, sizeof(struct ifinfomsg));
    build_link(n, d);
    emit("link", d->name, n);
    printf("ifindex=%d ifname=%s arphrd=%u flags=0x%x operstate=%u mtu=%u", d->ifindex, d->ifname,
           d->arphrd, d->flags, d->operstate, d->mtu);
    printf(" link=%d", d->link_netnsid >= 0 || d->iflink != d->ifindex ? d->iflink : 0);
    if (d->link_netnsid >= 0)
        printf(" link_netnsid=%d", d->link_netnsid);
    else
        printf(" link_netnsid=-");
    printf(" master=%d address=", d->master);
    print_mac(d->addr, d->addr_len);
    printf(" altnames=");
    if (!d->altnames[0])
        printf("-");
    for (int i = 0; i < 2 && d->altnames[i]; i++)
        printf(i ? ",%s" : "%s", d->altnames[i]);
    /* Links without IFLA_INFO_KIND: cmdemux calls them "device" (issue 2, the topology JSON). */
    printf(" kind=%s", d->kind == K_NONE ? "device" : d->kind_name);
    switch (d->kind) {
    case K_IPVLAN:
        printf(" ipvlan.mode=%u ipvlan.mode_name=%s ipvlan.flags=%u ipvlan.flags_name=%s", d->ipvlan_mode,
               ipvlan_mode_name(d->ipvlan_mode), d->ipvlan_flags, ipvlan_flags_name(d->ipvlan_flags));
        break;
    case K_BOND:
        printf(" bond.mode=%u bond.mode_name=%s bond.active_slave=%u", d->bond_mode, bond_mode_name(d->bond_mode),
               d->bond_active_slave);
        break;
    case K_VLAN:
        printf(" vlan.id=%u vlan.protocol=%u vlan.protocol_name=%s vlan.flags=%u", d->vlan_id, d->vlan_proto,
               vlan_proto_name(d->vlan_proto), d->vlan_flags);
        break;
    case K_IPOIB:
        printf(" ipoib.pkey=%u ipoib.mode=%u ipoib.mode_name=%s ipoib.umcast=%u", d->ipoib_pkey, d->ipoib_mode,
               ipoib_mode_name(d->ipoib_mode), d->ipoib_umcast);
        break;
    case K_MACVLAN:
        printf(" macvlan.mode=%u macvlan.mode_name=%s macvlan.flags=%u", d->macvlan_mode,
               macvlan_mode_name(d->macvlan_mode), d->macvlan_flags);
        break;
    default:
        break;
    }
    if (d->is_bond_slave) {
        printf(" slave.state=%u slave.state_name=%s slave.mii_status=%u slave.link_failure_count=%u"
               " slave.queue_id=%u slave.perm_hwaddr=",
               d->slave_state, slave_state_name(d->slave_state), d->slave_mii_status, d->slave_link_failure_count,
               d->slave_queue_id);
        print_mac(d->slave_perm_hwaddr, ETH_ALEN);
    } else {
        printf(" slave=-");
    }
    printf("\n");
}

#define ETH_UP (IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP)

static void links(void)
{
    /* An ipvlan shares its parent's MAC (ipvlan_link_new copies it). Parent: ifindex 3. */
#define IPVLAN(nm, idx, ifn, mode, fl)                                                                      \
    {                                                                                                      \
        .name = nm, .ifindex = idx, .ifname = ifn, .arphrd = ARPHRD_ETHER, .flags = ETH_UP | IFF_NOARP,    \
        .operstate = IF_OPER_UNKNOWN, .mtu = 1500, .iflink = 3, .link_netnsid = -1,                        \
        .addr = {0x52, 0x54, 0x00, 0x12, 0x34, 0x03}, .brd = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},          \
        .addr_len = ETH_ALEN, .kind = K_IPVLAN, .kind_name = "ipvlan", .ipvlan_mode = mode,                \
        .ipvlan_flags = fl                                                                                 \
    }
    struct link_desc ipvlans[] = {
        /* Mode and flags differ in every message, so that reading one for the other shows. */
        IPVLAN("ipvlan-l2-vepa", 7, "ipvl0", IPVLAN_MODE_L2, IPVLAN_F_VEPA),
        IPVLAN("ipvlan-l3-bridge", 8, "ipvl1", IPVLAN_MODE_L3, 0),
        IPVLAN("ipvlan-l3s-private", 9, "ipvl2", IPVLAN_MODE_L3S, IPVLAN_F_PRIVATE),
    };
    for (size_t i = 0; i < sizeof(ipvlans) / sizeof(ipvlans[0]); i++)
        emit_link(&ipvlans[i]);

    struct link_desc bond_ab = {
        .name = "bond-active-backup", .ifindex = 10, .ifname = "bond0", .arphrd = ARPHRD_ETHER,
        .flags = ETH_UP | IFF_MASTER, .operstate = IF_OPER_UP, .mtu = 1500, .iflink = 10, .link_netnsid = -1,
        .addr = {0x52, 0x54, 0x00, 0xab, 0x00, 0x11}, .brd = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
        .addr_len = ETH_ALEN, .kind = K_BOND, .kind_name = "bond", .bond_mode = BOND_MODE_ACTIVEBACKUP,
        .bond_active_slave = 11,
    };
    emit_link(&bond_ab);
    struct link_desc bond_rr = bond_ab;
    bond_rr.name = "bond-balance-rr";
    bond_rr.ifindex = bond_rr.iflink = 20;
    bond_rr.ifname = "bond1";
    bond_rr.bond_mode = BOND_MODE_ROUNDROBIN;
    bond_rr.bond_active_slave = 0; /* balance-rr has no active slave: bond_fill_info leaves it out */
    emit_link(&bond_rr);

    /* Slaves of bond0: physical devices (no IFLA_INFO_KIND), so IFLA_LINKINFO holds only the
     * slave kind and data. A bond gives every slave the bond's MAC; the permanent one stays in
     * IFLA_BOND_SLAVE_PERM_HWADDR. */
    struct link_desc slave_active = {
        .name = "bond-slave-active", .ifindex = 11, .ifname = "eth1", .arphrd = ARPHRD_ETHER,
        .flags = ETH_UP | IFF_SLAVE, .operstate = IF_OPER_UP, .mtu = 1500, .iflink = 11, .link_netnsid = -1,
        .master = 10, .addr = {0x52, 0x54, 0x00, 0xab, 0x00, 0x11}, .brd = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
        .addr_len = ETH_ALEN, .kind = K_NONE, .is_bond_slave = 1, .slave_state = BOND_STATE_ACTIVE,
        .slave_mii_status = BOND_LINK_UP, .slave_link_failure_count = 0,
        .slave_perm_hwaddr = {0x52, 0x54, 0x00, 0x00, 0x00, 0x11}, .slave_queue_id = 0,
    };
    emit_link(&slave_active);
    struct link_desc slave_backup = slave_active;
    slave_backup.name = "bond-slave-backup";
    slave_backup.ifindex = slave_backup.iflink = 12;
    slave_backup.ifname = "eth2";
    slave_backup.flags = (ETH_UP & ~(IFF_RUNNING | IFF_LOWER_UP)) | IFF_SLAVE;
    slave_backup.operstate = IF_OPER_DOWN;
    slave_backup.slave_state = BOND_STATE_BACKUP;
    slave_backup.slave_mii_status = BOND_LINK_DOWN;
    slave_backup.slave_link_failure_count = 3;
    slave_backup.slave_perm_hwaddr[5] = 0x12;
    slave_backup.slave_queue_id = 2;
    emit_link(&slave_backup);
    /* A slave that has a kind of its own (veth): both IFLA_INFO_KIND and IFLA_INFO_SLAVE_KIND. */
    struct link_desc slave_veth = slave_active;
    slave_veth.name = "bond-slave-veth";
    slave_veth.ifindex = 13;
    slave_veth.iflink = 14; /* veth_get_iflink(): the peer */
    slave_veth.ifname = "veth-b0";
    slave_veth.kind = K_VETH;
    slave_veth.kind_name = "veth";
    slave_veth.slave_state = BOND_STATE_BACKUP;
    slave_veth.slave_perm_hwaddr[5] = 0x13;
    slave_veth.slave_queue_id = 65535;
    slave_veth.slave_link_failure_count = 0xfffffffeu; /* a u32 beyond INT_MAX */
    emit_link(&slave_veth);

    struct link_desc vlan_q = {
        .name = "vlan-8021q", .ifindex = 15, .ifname = "eth0.100", .arphrd = ARPHRD_ETHER,
        .flags = ETH_UP, .operstate = IF_OPER_UP, .mtu = 1500, .iflink = 2, .link_netnsid = -1,
        .addr = {0x52, 0x54, 0x00, 0x12, 0x34, 0x02}, .brd = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
        .addr_len = ETH_ALEN, .kind = K_VLAN, .kind_name = "vlan", .vlan_id = 100, .vlan_proto = ETH_P_8021Q,
        .vlan_flags = VLAN_FLAG_REORDER_HDR,
    };
    emit_link(&vlan_q);
    struct link_desc vlan_ad = vlan_q;
    vlan_ad.name = "vlan-8021ad";
    vlan_ad.ifindex = 16;
    vlan_ad.ifname = "eth0.4094";
    vlan_ad.vlan_id = 4094;
    vlan_ad.vlan_proto = ETH_P_8021AD;
    vlan_ad.vlan_flags = VLAN_FLAG_REORDER_HDR | VLAN_FLAG_LOOSE_BINDING;
    emit_link(&vlan_ad);

    /* IPoIB: ARPHRD_INFINIBAND, a 20-byte hardware address (flags + QPN, then the port GID) and
     * the broadcast address with the P_Key in bytes 8-9 (ipoib_setup_common, ipoib_set_dev_features). */
    struct link_desc ib_parent = {
        .name = "ipoib-parent", .ifindex = 4, .ifname = "ib0", .arphrd = ARPHRD_INFINIBAND,
        .flags = IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP, .operstate = IF_OPER_UP,
        .mtu = 2044, .iflink = 4, .link_netnsid = -1,
        .addr = {0x80, 0x00, 0x01, 0x07, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3},
        .brd = {0x00, 0xff, 0xff, 0xff, 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff},
        .addr_len = INFINIBAND_ALEN, .kind = K_IPOIB, .kind_name = "ipoib", .ipoib_pkey = 0xffff,
        .ipoib_mode = IPOIB_MODE_DATAGRAM, .ipoib_umcast = 1,
    };
    emit_link(&ib_parent);
    struct link_desc ib_child = ib_parent;
    ib_child.name = "ipoib-child";
    ib_child.ifindex = 5;
    ib_child.iflink = 4; /* ipoib_get_iflink(): a child names its parent */
    ib_child.ifname = "ib0.8001";
    ib_child.mtu = 65520;
    ib_child.addr[3] = 0x48; /* its own QPN, the same port GID */
    ib_child.brd[8] = 0x80;
    ib_child.brd[9] = 0x01;
    ib_child.ipoib_pkey = 0x8001;
    ib_child.ipoib_mode = IPOIB_MODE_CONNECTED;
    ib_child.ipoib_umcast = 0; /* mode and umcast differ in both messages */
    emit_link(&ib_child);

    /* A macvlan in a pod whose parent, ifindex 12, lives in the namespace with nsid 0. */
    struct link_desc mv = {
        .name = "macvlan-in-pod", .ifindex = 2, .ifname = "net1", .arphrd = ARPHRD_ETHER, .flags = ETH_UP,
        .operstate = IF_OPER_UP, .mtu = 1500, .iflink = 12, .link_netnsid = 0,
        .addr = {0x6a, 0x1f, 0x33, 0x44, 0x55, 0x66}, .brd = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
        .addr_len = ETH_ALEN, .kind = K_MACVLAN, .kind_name = "macvlan", .macvlan_mode = MACVLAN_MODE_BRIDGE,
        .macvlan_flags = 0,
    };
    emit_link(&mv);
    /* The same, with the pod-side ifindex equal to the parent's: IFLA_LINK equals ifindex and is
     * still sent, forced by the link-netnsid. */
    struct link_desc mv_same = mv;
    mv_same.name = "macvlan-in-pod-same-ifindex";
    mv_same.ifindex = 3;
    mv_same.iflink = 3;
    mv_same.ifname = "net2";
    mv_same.addr[5] = 0x67;
    emit_link(&mv_same);

    /* A physical device with two alternative names (ip link property add ... altname). */
    struct link_desc alt = {
        .name = "altnames", .ifindex = 3, .ifname = "enp1s0f0", .arphrd = ARPHRD_ETHER, .flags = ETH_UP,
        .operstate = IF_OPER_UP, .mtu = 9000, .iflink = 3, .link_netnsid = -1,
        .addr = {0x52, 0x54, 0x00, 0x12, 0x34, 0x03}, .brd = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
        .addr_len = ETH_ALEN, .kind = K_NONE,
        .altnames = {"enp1s0f0np0", "rdma-uplink-with-a-name-longer-than-ifnamsiz"},
    };
    emit_link(&alt);

    /* A kind cmdemux has no model for: no hardware address, ARPHRD_NONE, no IFLA_INFO_DATA. */
    struct link_desc wg = {
        .name = "wireguard", .ifindex = 30, .ifname = "wg0", .arphrd = ARPHRD_NONE,
        .flags = IFF_UP | IFF_POINTOPOINT | IFF_NOARP | IFF_RUNNING | IFF_LOWER_UP, .operstate = IF_OPER_UNKNOWN,
        .mtu = 1420, .iflink = 30, .link_netnsid = -1, .addr_len = 0, .kind = K_OTHER, .kind_name = "wireguard",
    };
    emit_link(&wg);
}

/* -------------------------------------------------------------- addresses */

struct addr_desc {
    const char *name;
    int family;
    int ifindex;
    unsigned char prefixlen, scope;
    unsigned flags;            /* IFA_FLAGS; ifa_flags carries the low 8 bits */
    const char *local;         /* IFA_LOCAL (v4 always; v6 only with a peer) */
    const char *peer;          /* IFA_ADDRESS when it differs, else NULL */
    const char *label;         /* IFA_LABEL (v4 only), or NULL */
};

static void emit_addr(const struct addr_desc *d)
{
    struct nlmsghdr *n = begin(RTM_NEWADDR, NLM_F_MULTI, 1700000002, 4242, sizeof(struct ifaddrmsg));
    struct ifaddrmsg *ifa = NLMSG_DATA(n);
    size_t alen = d->family == AF_INET ? 4 : 16;
    unsigned char local[16], peer[16];
    ifa->ifa_family = d->family;
    ifa->ifa_prefixlen = d->prefixlen;
    ifa->ifa_flags = d->flags & 0xff;
    ifa->ifa_scope = d->scope;
    ifa->ifa_index = d->ifindex;
    if (inet_pton(d->family, d->local, local) != 1 || (d->peer && inet_pton(d->family, d->peer, peer) != 1)) {
        fprintf(stderr, "golden_links: bad address in %s\n", d->name);
        exit(2);
    }
    if (d->family == AF_INET) { /* inet_fill_ifaddr(): IFA_ADDRESS (peer or local), IFA_LOCAL, IFA_LABEL */
        put(n, IFA_ADDRESS, d->peer ? peer : local, alen);
        put(n, IFA_LOCAL, local, alen);
        if (!d->peer && d->prefixlen < 31) {
            uint32_t brd;
            memcpy(&brd, local, 4);
            brd |= htonl(0xffffffffu >> d->prefixlen);
            put(n, IFA_BROADCAST, &brd, 4);
        }
        if (d->label)
            put_str(n, IFA_LABEL, d->label);
        put_u32(n, IFA_FLAGS, d->flags);
    } else { /* inet6_fill_ifaddr(): IFA_LOCAL + IFA_ADDRESS (peer) or IFA_ADDRESS alone */
        if (d->peer) {
            put(n, IFA_LOCAL, local, alen);
            put(n, IFA_ADDRESS, peer, alen);
        } else {
            put(n, IFA_ADDRESS, local, alen);
        }
    }
    struct ifa_cacheinfo ci = { .ifa_prefered = 0xffffffffu, .ifa_valid = 0xffffffffu, .cstamp = 100, .tstamp = 100 };
    put(n, IFA_CACHEINFO, &ci, sizeof(ci));
    if (d->family == AF_INET6)
        put_u32(n, IFA_FLAGS, d->flags);
    emit("addr", d->name, n);
    char text[INET6_ADDRSTRLEN];
    inet_ntop(d->family, local, text, sizeof(text));
    printf("family=%d ifindex=%d address=%s prefixlen=%u scope=%u flags=%u label=%s peer=", d->family, d->ifindex,
           text, d->prefixlen, d->scope, d->flags, d->label ? d->label : "-");
    if (d->peer) {
        inet_ntop(d->family, peer, text, sizeof(text));
        printf("%s\n", text);
    } else {
        printf("-\n");
    }
}

static void addresses(void)
{
    struct addr_desc a[] = {
        {"addr-v4-label", AF_INET, 2, 24, RT_SCOPE_UNIVERSE, IFA_F_PERMANENT, "10.77.0.2", NULL, "net1:rdma"},
        {"addr-v4-peer", AF_INET, 5, 32, RT_SCOPE_UNIVERSE, IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE, "10.88.0.1",
         "10.88.0.2", "ib0.8001"},
        {"addr-v6-global", AF_INET6, 2, 64, RT_SCOPE_UNIVERSE, IFA_F_PERMANENT | IFA_F_NODAD, "fd00:77::2", NULL, NULL},
        {"addr-v6-link", AF_INET6, 4, 64, RT_SCOPE_LINK, IFA_F_PERMANENT | IFA_F_STABLE_PRIVACY, "fe80::202:c903:a1:b2c3",
         NULL, NULL},
        /* inet_ntop writes v4-mapped IPv6 addresses as ::ffff:a.b.c.d; they are IPv6 addresses. */
        {"addr-v6-v4mapped", AF_INET6, 2, 128, RT_SCOPE_UNIVERSE, IFA_F_PERMANENT, "::ffff:10.77.0.9", NULL, NULL},
        {"addr-v6-peer", AF_INET6, 5, 128, RT_SCOPE_UNIVERSE, IFA_F_PERMANENT, "fd00:88::1", "fd00:88::2", NULL},
    };
    for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
        emit_addr(&a[i]);
}

/* ----------------------------------------------------------------- routes */

struct hop { int ifindex; const char *gw; int weight; };
struct route_desc {
    const char *name;
    int family;
    unsigned table;
    unsigned char type, protocol, scope, dst_len, tos;
    const char *dst;        /* NULL: default route */
    int oif;                /* single-nexthop routes */
    const char *gw;
    const char *prefsrc;
    unsigned priority;      /* 0: absent */
    struct hop hops[3];     /* multipath when hops[0].ifindex != 0 */
};

static void emit_route(const struct route_desc *d)
{
    struct nlmsghdr *n = begin(RTM_NEWROUTE, NLM_F_MULTI, 1700000003, 4242, sizeof(struct rtmsg));
    struct rtmsg *rtm = NLMSG_DATA(n);
    size_t alen = d->family == AF_INET ? 4 : 16;
    unsigned char buf[16];
    rtm->rtm_family = d->family;
    rtm->rtm_dst_len = d->dst_len;
    rtm->rtm_tos = d->tos;
    rtm->rtm_table = d->table < 256 ? d->table : RT_TABLE_COMPAT; /* fib_dump_info() */
    rtm->rtm_protocol = d->protocol;
    rtm->rtm_scope = d->scope;
    rtm->rtm_type = d->type;
    put_u32(n, RTA_TABLE, d->table);
    if (d->dst) {
        inet_pton(d->family, d->dst, buf);
        put(n, RTA_DST, buf, alen);
    }
    if (d->priority)
        put_u32(n, RTA_PRIORITY, d->priority);
    if (d->prefsrc) {
        inet_pton(d->family, d->prefsrc, buf);
        put(n, RTA_PREFSRC, buf, alen);
    }
    if (d->hops[0].ifindex) { /* fib_add_multipath(): rtnexthop + its own attributes per hop */
        struct rtattr *mp = nest(n, RTA_MULTIPATH);
        for (int i = 0; i < 3 && d->hops[i].ifindex; i++) {
            struct rtnexthop *rtnh = (struct rtnexthop *)((char *)n + n->nlmsg_len);
            n->nlmsg_len += RTNH_ALIGN(sizeof(*rtnh));
            rtnh->rtnh_flags = 0;
            rtnh->rtnh_hops = d->hops[i].weight - 1;
            rtnh->rtnh_ifindex = d->hops[i].ifindex;
            inet_pton(d->family, d->hops[i].gw, buf);
            put(n, RTA_GATEWAY, buf, alen);
            rtnh->rtnh_len = (unsigned short)((char *)n + n->nlmsg_len - (char *)rtnh);
        }
        nest_end(n, mp);
    } else {
        if (d->gw) {
            inet_pton(d->family, d->gw, buf);
            put(n, RTA_GATEWAY, buf, alen);
        }
        put_u32(n, RTA_OIF, d->oif);
    }
    if (d->family == AF_INET6) {
        struct rta_cacheinfo ci;
        memset(&ci, 0, sizeof(ci));
        put(n, RTA_CACHEINFO, &ci, sizeof(ci));
        put_u8(n, RTA_PREF, 0);
    }
    emit("route", d->name, n);
    printf("family=%d table=%u type=%u protocol=%u scope=%u tos=%u dst=%s dst_len=%u oif=%d gateway=%s prefsrc=%s"
           " priority=%u nexthops=",
           d->family, d->table, d->type, d->protocol, d->scope, d->tos, d->dst ? d->dst : "-", d->dst_len,
           d->hops[0].ifindex ? 0 : d->oif, d->gw && !d->hops[0].ifindex ? d->gw : "-", d->prefsrc ? d->prefsrc : "-",
           d->priority);
    if (!d->hops[0].ifindex)
        printf("-");
    for (int i = 0; i < 3 && d->hops[i].ifindex; i++)
        printf(i ? ",%d/%s/%d" : "%d/%s/%d", d->hops[i].ifindex, d->hops[i].gw, d->hops[i].weight);
    printf("\n");
}

static void routes(void)
{
    struct route_desc r[] = {
        {.name = "route-v4-connected", .family = AF_INET, .table = RT_TABLE_MAIN, .type = RTN_UNICAST,
         .protocol = RTPROT_KERNEL, .scope = RT_SCOPE_LINK, .dst_len = 24, .dst = "10.77.0.0", .oif = 2,
         .prefsrc = "10.77.0.2"},
        {.name = "route-v4-default", .family = AF_INET, .table = RT_TABLE_MAIN, .type = RTN_UNICAST,
         .protocol = RTPROT_STATIC, .scope = RT_SCOPE_UNIVERSE, .dst_len = 0, .dst = NULL, .oif = 2,
         .gw = "10.77.0.1", .priority = 100},
        {.name = "route-v4-local", .family = AF_INET, .table = RT_TABLE_LOCAL, .type = RTN_LOCAL,
         .protocol = RTPROT_KERNEL, .scope = RT_SCOPE_HOST, .dst_len = 32, .dst = "10.77.0.2", .oif = 2,
         .prefsrc = "10.77.0.2"},
        /* A table above 255: rtm_table says RT_TABLE_COMPAT, RTA_TABLE the real one. */
        {.name = "route-v4-multipath-table1000", .family = AF_INET, .table = 1000, .type = RTN_UNICAST,
         .protocol = RTPROT_BOOT, .scope = RT_SCOPE_UNIVERSE, .dst_len = 16, .dst = "10.99.0.0",
         .hops = {{2, "10.77.0.1", 1}, {5, "10.88.0.2", 3}}},
        {.name = "route-v6-multipath", .family = AF_INET6, .table = RT_TABLE_MAIN, .type = RTN_UNICAST,
         .protocol = RTPROT_BOOT, .scope = RT_SCOPE_UNIVERSE, .dst_len = 48, .dst = "fd00:99::", .priority = 1024,
         .hops = {{2, "fe80::1", 1}, {5, "fe80::2", 2}, {4, "fe80::3", 256}}},
        {.name = "route-v6-link", .family = AF_INET6, .table = RT_TABLE_MAIN, .type = RTN_UNICAST,
         .protocol = RTPROT_KERNEL, .scope = RT_SCOPE_UNIVERSE, .dst_len = 64, .dst = "fd00:77::", .oif = 2,
         .priority = 256},
    };
    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
        emit_route(&r[i]);
}

/* ------------------------------------------------------------ nsid, errors */

static void nsids(void)
{
    /* rtnl_net_fill(): nlmsg_put() of a 1-byte rtgenmsg, attributes at NLMSG_ALIGN. */
    struct nlmsghdr *n = begin(RTM_NEWNSID, NLM_F_MULTI, 1700000004, 4242, sizeof(struct rtgenmsg));
    ((struct rtgenmsg *)NLMSG_DATA(n))->rtgen_family = AF_UNSPEC;
    put_s32(n, NETNSA_NSID, 3);
    emit("nsid", "nsid-plain", n);
    printf("nsid=3 current_nsid=-\n");

    n = begin(RTM_NEWNSID, NLM_F_MULTI, 1700000005, 4242, sizeof(struct rtgenmsg));
    ((struct rtgenmsg *)NLMSG_DATA(n))->rtgen_family = AF_UNSPEC;
    put_s32(n, NETNSA_NSID, 0);
    put_s32(n, NETNSA_CURRENT_NSID, NETNSA_NSID_NOT_ASSIGNED);
    emit("nsid", "nsid-with-current", n);
    printf("nsid=0 current_nsid=%d\n", NETNSA_NSID_NOT_ASSIGNED);
}

static void errors(void)
{
    static const char text[] = "Unknown device type";
    /* netlink_ack() for a rejected RTM_NEWLINK, capped: only the request's header is echoed. */
    struct nlmsghdr *n = begin(NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, 77, 4242, sizeof(struct nlmsgerr));
    struct nlmsgerr *e = NLMSG_DATA(n);
    e->error = -EOPNOTSUPP;
    e->msg.nlmsg_len = 64;
    e->msg.nlmsg_type = RTM_NEWLINK;
    e->msg.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE;
    e->msg.nlmsg_seq = 77;
    put_str(n, NLMSGERR_ATTR_MSG, text);
    put_u32(n, NLMSGERR_ATTR_OFFS, 36);
    emit("error", "error-capped-extack", n);
    printf("error=%d message=", -EOPNOTSUPP);
    print_token(text);
    printf("\n");

    /* Not capped: the whole 24-byte request follows the header, the TLVs after it. */
    n = begin(NLMSG_ERROR, NLM_F_ACK_TLVS, 78, 4242, sizeof(struct nlmsgerr) + 8);
    e = NLMSG_DATA(n);
    e->error = -EINVAL;
    e->msg.nlmsg_len = NLMSG_LENGTH(8);
    e->msg.nlmsg_type = RTM_GETADDR;
    e->msg.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    e->msg.nlmsg_seq = 78;
    static const char text2[] = "Invalid prefix for given prefix length";
    put_str(n, NLMSGERR_ATTR_MSG, text2);
    emit("error", "error-full-extack", n);
    printf("error=%d message=", -EINVAL);
    print_token(text2);
    printf("\n");

    n = begin(NLMSG_ERROR, 0, 79, 4242, sizeof(struct nlmsgerr));
    e = NLMSG_DATA(n);
    e->error = 0;
    e->msg.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtgenmsg));
    e->msg.nlmsg_type = RTM_NEWNSID;
    emit("error", "ack", n);
    printf("error=0 message=-\n");
}

/* ---------------------------------------------------------------- requests */

static void requests(void)
{
    /* RTM_GETLINK dump with IFLA_EXT_MASK, as iproute2's rtnl_linkdump_req() sends it. */
    unsigned seq = 0x12345678;
    struct nlmsghdr *n = begin(RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, seq, 0, sizeof(struct ifinfomsg));
    ((struct ifinfomsg *)NLMSG_DATA(n))->ifi_family = AF_UNSPEC;
    put_u32(n, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
    emit("request", "getlink-dump", n);
    printf("seq=%u\n", seq);

    n = begin(RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, seq + 1, 0, sizeof(struct ifaddrmsg));
    emit("request", "getaddr-dump", n);
    printf("seq=%u\n", seq + 1);

    /* rtm_table RT_TABLE_UNSPEC: every table. */
    n = begin(RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, seq + 2, 0, sizeof(struct rtmsg));
    ((struct rtmsg *)NLMSG_DATA(n))->rtm_family = AF_INET6;
    emit("request", "getroute-dump-v6", n);
    printf("seq=%u family=%d\n", seq + 2, AF_INET6);

    /* ip netns list-id target-nsid 5: rtgenmsg, then NETNSA_TARGET_NSID at NLMSG_ALIGN. */
    n = begin(RTM_GETNSID, NLM_F_REQUEST | NLM_F_DUMP, seq + 3, 0, sizeof(struct rtgenmsg));
    ((struct rtgenmsg *)NLMSG_DATA(n))->rtgen_family = AF_UNSPEC;
    put_u32(n, NETNSA_TARGET_NSID, 5);
    emit("request", "getnsid-dump-target", n);
    printf("seq=%u target_nsid=5\n", seq + 3);

    /* ip link add mv0 link eth0 type macvlan mode bridge: nests with NLA_F_NESTED (addattr_nest). */
    n = begin(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, seq + 4, 0, sizeof(struct ifinfomsg));
    put_u32(n, IFLA_LINK, 2);
    put_str(n, IFLA_IFNAME, "mv0");
    struct rtattr *li = nest(n, IFLA_LINKINFO | NLA_F_NESTED);
    put_str(n, IFLA_INFO_KIND, "macvlan");
    struct rtattr *data = nest(n, IFLA_INFO_DATA | NLA_F_NESTED);
    put_u32(n, IFLA_MACVLAN_MODE, MACVLAN_MODE_BRIDGE);
    put_u16(n, IFLA_MACVLAN_FLAGS, 0);
    nest_end(n, data);
    nest_end(n, li);
    emit("request", "newlink-macvlan", n);
    printf("seq=%u flags=%u link=2 ifname=mv0 kind=macvlan mode=%u\n", seq + 4,
           NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, MACVLAN_MODE_BRIDGE);

    /* RTM_SETLINK with u8 attributes, the way wpa_supplicant reports a dormant link. */
    n = begin(RTM_SETLINK, NLM_F_REQUEST, seq + 5, 0, sizeof(struct ifinfomsg));
    ((struct ifinfomsg *)NLMSG_DATA(n))->ifi_index = 5;
    put_u8(n, IFLA_LINKMODE, IF_LINK_MODE_DORMANT);
    put_u8(n, IFLA_OPERSTATE, IF_OPER_DORMANT);
    emit("request", "setlink-dormant", n);
    printf("seq=%u ifindex=5 linkmode=%u operstate=%u\n", seq + 5, IF_LINK_MODE_DORMANT, IF_OPER_DORMANT);
}

int main(void)
{
    links();
    addresses();
    routes();
    nsids();
    errors();
    requests();
    return fflush(stdout) == 0 ? 0 : 1;
}
