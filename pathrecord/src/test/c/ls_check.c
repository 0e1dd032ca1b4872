/*
 * A judge for RDMA_NL_LS replies that follows what the kernel does with them, built only from the
 * uapi headers (<linux/netlink.h>, <rdma/rdma_netlink.h>, <rdma/ib_user_sa.h>; linux-libc-dev):
 *
 *   resolve  drivers/infiniband/core/netlink.c rdma_nl_rcv_msg()/rdma_nl_rcv_skb() (type must be
 *            RDMA_NL_LS / an op below RDMA_NL_LS_NUM_OPS), sa_query.c ib_nl_handle_resolve_resp()
 *            (NLM_F_REQUEST gives -EPERM; the seq must match the query), ib_nl_is_good_resolve_resp()
 *            (RDMA_NL_LS_F_ERR, then nla_parse_deprecated() against ib_nl_policy: NLA_BINARY
 *            lengths are maxima, NLA_U* minima, types 0 or above LS_NLA_TYPE_MAX - 1 skipped),
 *            ib_nl_process_good_resolve_rsp() (the keep-mask of the query's path_use, nla_type
 *            compared exactly with LS_NLA_TYPE_PATH_RECORD, at most RDMA_PRIMARY_PATH_MAX_REC_NUM = 3
 *            records, -EIO when none is kept), cma.c cma_query_handler() (no flags or GMP: the
 *            route's path_rec; INBOUND: path_rec_inbound; OUTBOUND: path_rec_outbound; else -EINVAL);
 *            each kept record's fields unpacked at the offsets of sa_query.c path_rec_table.
 *   ip       addr.c ib_nl_handle_ip_res_resp(), ib_nl_is_good_ip_resp(), ib_nl_process_good_ip_rsep().
 *   timeout  sa_query.c ib_nl_handle_set_timeout(): NLM_F_REQUEST required, TIMEOUT clamped to
 *            100..200000 ms.
 *
 * Input, one message per line: "<mode> <arg> <seq> <hex>" where mode is resolve (arg: the query's
 * path_use), ip or timeout (arg ignored). Output, one line per input: key=value pairs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <rdma/ib_user_sa.h>
#include <rdma/rdma_netlink.h>

#define PRIMARY_MAX 3 /* sa_query.c RDMA_PRIMARY_PATH_MAX_REC_NUM */

enum ptype { P_NONE, P_BINARY, P_U8, P_U16, P_U32, P_U64 };
struct pol {
	enum ptype type;
	int len;
};

/* sa_query.c ib_nl_policy */
static const struct pol resolve_policy[LS_NLA_TYPE_MAX] = {
	[LS_NLA_TYPE_PATH_RECORD] = {P_BINARY, sizeof(struct ib_path_rec_data)},
	[LS_NLA_TYPE_TIMEOUT] = {P_U32, 0},
	[LS_NLA_TYPE_SERVICE_ID] = {P_U64, 0},
	[LS_NLA_TYPE_DGID] = {P_BINARY, sizeof(struct rdma_nla_ls_gid)},
	[LS_NLA_TYPE_SGID] = {P_BINARY, sizeof(struct rdma_nla_ls_gid)},
	[LS_NLA_TYPE_TCLASS] = {P_U8, 0},
	[LS_NLA_TYPE_PKEY] = {P_U16, 0},
	[LS_NLA_TYPE_QOS_CLASS] = {P_U16, 0},
};

/* addr.c ib_nl_addr_policy */
static const struct pol addr_policy[LS_NLA_TYPE_MAX] = {
	[LS_NLA_TYPE_DGID] = {P_BINARY, sizeof(struct rdma_nla_ls_gid)},
	[LS_NLA_TYPE_IPV4] = {P_U32, 0},
	[LS_NLA_TYPE_IPV6] = {P_BINARY, sizeof(struct in6_addr)},
};

static int minlen(enum ptype t)
{
	switch (t) {
	case P_U8: return 1;
	case P_U16: return 2;
	case P_U32: return 4;
	case P_U64: return 8;
	default: return 0;
	}
}

/* nla_parse_deprecated(): liberal validation; returns 0 or -ERANGE. */
static int parse_liberal(const struct nlattr *head, int len, const struct pol *policy, const struct nlattr **tb)
{
	const struct nlattr *a = head;
	int rem = len;
	memset(tb, 0, sizeof(*tb) * LS_NLA_TYPE_MAX);
	while (rem >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= rem) {
		int type = a->nla_type & NLA_TYPE_MASK;
		int alen = a->nla_len - NLA_HDRLEN;
		if (type > 0 && type <= LS_NLA_TYPE_MAX - 1) {
			const struct pol *p = &policy[type];
			if (p->type == P_BINARY && p->len && alen > p->len)
				return -ERANGE;
			if (alen < minlen(p->type))
				return -ERANGE;
			tb[type] = a;
		}
		rem -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	return 0; /* trailing bytes only warn in liberal mode */
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

static uint32_t be32at(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Unpacks one 64-byte PathRecord at the word/bit offsets of sa_query.c path_rec_table. */
static void print_record(int i, const uint8_t *pr)
{
	char dgid[INET6_ADDRSTRLEN], sgid[INET6_ADDRSTRLEN];
	uint32_t w11 = be32at(pr + 44), w12 = be32at(pr + 48), w13 = be32at(pr + 52), w14 = be32at(pr + 56);
	inet_ntop(AF_INET6, pr + 8, dgid, sizeof(dgid));
	inet_ntop(AF_INET6, pr + 24, sgid, sizeof(sgid));
	printf(" r%d.service_id=0x%016llx r%d.dgid=%s r%d.sgid=%s r%d.dlid=%u r%d.slid=%u r%d.raw_traffic=%u r%d.flow_label=%u r%d.hop_limit=%u",
	       i, (unsigned long long)(((uint64_t)be32at(pr) << 32) | be32at(pr + 4)), i, dgid, i, sgid,
	       i, (pr[40] << 8) | pr[41], i, (pr[42] << 8) | pr[43], i, w11 >> 31, i, (w11 >> 8) & 0xfffff, i, w11 & 0xff);
	printf(" r%d.tclass=%u r%d.reversible=%u r%d.numb_path=%u r%d.pkey=0x%04x", i, w12 >> 24, i, (w12 >> 23) & 1, i, (w12 >> 16) & 0x7f,
	       i, w12 & 0xffff);
	printf(" r%d.qos_class=%u r%d.sl=%u r%d.mtu_selector=%u r%d.mtu=%u r%d.rate_selector=%u r%d.rate=%u", i, w13 >> 20, i, (w13 >> 16) & 0xf,
	       i, (w13 >> 14) & 3, i, (w13 >> 8) & 0x3f, i, (w13 >> 6) & 3, i, w13 & 0x3f);
	printf(" r%d.packet_life_time_selector=%u r%d.packet_life_time=%u r%d.preference=%u r%d.reserved_zero=%d", i, w14 >> 30,
	       i, (w14 >> 24) & 0x3f, i, (w14 >> 16) & 0xff, i, (w14 & 0xffff) == 0 && pr[60] == 0 && pr[61] == 0 && pr[62] == 0 && pr[63] == 0);
}

static void check_resolve(const struct nlmsghdr *nlh, int path_use)
{
	const struct nlattr *tb[LS_NLA_TYPE_MAX];
	const struct nlattr *head = (const struct nlattr *)NLMSG_DATA(nlh);
	int len = nlh->nlmsg_len - NLMSG_HDRLEN;
	uint32_t mask;
	int kept = 0, rem, cma_ok = 1, has_path_rec = 0;

	if (nlh->nlmsg_flags & RDMA_NL_LS_F_ERR) {
		printf(" good=0 why=err_flag fallback=1\n");
		return;
	}
	if (parse_liberal(head, len, resolve_policy, tb)) {
		printf(" good=0 why=policy fallback=1\n");
		return;
	}
	switch (path_use) {
	case LS_RESOLVE_PATH_USE_UNIDIRECTIONAL:
		mask = IB_PATH_PRIMARY | IB_PATH_OUTBOUND;
		break;
	case LS_RESOLVE_PATH_USE_ALL:
		mask = IB_PATH_PRIMARY;
		break;
	case LS_RESOLVE_PATH_USE_GMP:
	default:
		mask = IB_PATH_PRIMARY | IB_PATH_GMP | IB_PATH_BIDIRECTIONAL;
		break;
	}
	printf(" good=1 fallback=0 mask=0x%x", mask);
	/* Every PATH_RECORD as sent, kept or not (alternates are never kept today), before the kernel's choice. */
	int n = 0;
	const struct nlattr *a = head;
	rem = len;
	while (rem >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= rem) {
		if (a->nla_type == LS_NLA_TYPE_PATH_RECORD && a->nla_len - NLA_HDRLEN == sizeof(struct ib_path_rec_data)) {
			const struct ib_path_rec_data *rec = (const void *)((const char *)a + NLA_HDRLEN);
			const uint8_t *pr = (const uint8_t *)rec->path_rec;
			printf(" a%d.flags=0x%x a%d.dlid=%u a%d.slid=%u a%d.sl=%u", n, rec->flags, n, (pr[40] << 8) | pr[41], n,
			       (pr[42] << 8) | pr[43], n, (be32at(pr + 52) >> 16) & 0xf);
			n++;
		}
		rem -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	printf(" attrs=%d", n);
	a = head;
	rem = len;
	while (rem >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= rem) {
		if (a->nla_type == LS_NLA_TYPE_PATH_RECORD) {
			const struct ib_path_rec_data *rec = (const void *)((const char *)a + NLA_HDRLEN);
			if ((rec->flags & mask) == mask) {
				const char *slot;
				if (!rec->flags || (rec->flags & IB_PATH_GMP)) {
					slot = "path_rec";
					has_path_rec = 1;
				} else if (rec->flags & IB_PATH_INBOUND) {
					slot = "inbound";
				} else if (rec->flags & IB_PATH_OUTBOUND) {
					slot = "outbound";
				} else {
					slot = "einval";
					cma_ok = 0;
				}
				printf(" r%d.flags=0x%x r%d.slot=%s r%d.len=%d", kept, rec->flags, kept, slot, kept, a->nla_len - NLA_HDRLEN);
				print_record(kept, (const uint8_t *)rec->path_rec);
				kept++;
				if (kept >= PRIMARY_MAX)
					break;
			}
		}
		rem -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	printf(" kept=%d status=%d cma=%s has_path_rec=%d\n", kept, kept ? 0 : -EIO, kept && cma_ok ? "ok" : kept ? "einval" : "route_error",
	       has_path_rec);
}

static void check_ip(const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[LS_NLA_TYPE_MAX];
	const struct nlattr *head = (const struct nlattr *)NLMSG_DATA(nlh);
	int len = nlh->nlmsg_len - NLMSG_HDRLEN, rem, found = 0;
	uint8_t gid[16] = {0};
	char text[INET6_ADDRSTRLEN];

	if ((nlh->nlmsg_flags & RDMA_NL_LS_F_ERR) || parse_liberal(head, len, addr_policy, tb)) {
		printf(" good=0\n");
		return;
	}
	const struct nlattr *a = head;
	rem = len;
	while (rem >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= rem) {
		if (a->nla_type == LS_NLA_TYPE_DGID) {
			memcpy(gid, (const char *)a + NLA_HDRLEN, a->nla_len - NLA_HDRLEN);
			found = 1;
		}
		rem -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	inet_ntop(AF_INET6, gid, text, sizeof(text));
	printf(" good=1 dgid_found=%d dgid=%s\n", found, text);
}

static void check_timeout(const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[LS_NLA_TYPE_MAX];
	if (!(nlh->nlmsg_flags & NLM_F_REQUEST)) {
		printf(" rc=-EPERM\n");
		return;
	}
	if (parse_liberal((const struct nlattr *)NLMSG_DATA(nlh), nlh->nlmsg_len - NLMSG_HDRLEN, resolve_policy, tb) ||
	    !tb[LS_NLA_TYPE_TIMEOUT]) {
		printf(" rc=0 timeout=unchanged\n");
		return;
	}
	int t = *(const int *)((const char *)tb[LS_NLA_TYPE_TIMEOUT] + NLA_HDRLEN);
	if (t < 100)
		t = 100;
	if (t > 200000)
		t = 200000;
	printf(" rc=0 timeout=%d\n", t);
}

int main(void)
{
	static char line[65536];
	static union {
		struct nlmsghdr n;
		uint8_t b[32768];
	} buf;

	while (fgets(line, sizeof(line), stdin)) {
		char mode[16], hex[65536];
		int arg;
		unsigned seq;
		if (sscanf(line, "%15s %d %u %65535s", mode, &arg, &seq, hex) != 4) {
			printf("error=bad_input_line\n");
			continue;
		}
		size_t n = strlen(hex) / 2;
		memset(&buf, 0, sizeof(buf));
		for (size_t i = 0; i < n; i++)
			buf.b[i] = (hexval(hex[2 * i]) << 4) | hexval(hex[2 * i + 1]);
		const struct nlmsghdr *nlh = &buf.n;
		if (n < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > n) {
			printf("delivered=0 why=nlmsg_len\n");
			continue;
		}
		unsigned client = RDMA_NL_GET_CLIENT(nlh->nlmsg_type), op = RDMA_NL_GET_OP(nlh->nlmsg_type);
		printf("delivered=1 client=%u op=%u flags=0x%x len=%u", client, op, nlh->nlmsg_flags, nlh->nlmsg_len);
		if (client != RDMA_NL_LS || op >= RDMA_NL_LS_NUM_OPS) {
			printf(" rc=-EINVAL\n");
			continue;
		}
		if (!strcmp(mode, "timeout")) {
			check_timeout(nlh);
			continue;
		}
		if (nlh->nlmsg_flags & NLM_F_REQUEST) {
			printf(" rc=-EPERM\n");
			continue;
		}
		if (nlh->nlmsg_seq != seq) {
			printf(" rc=0 matched=0\n");
			continue;
		}
		printf(" rc=0 matched=1");
		if (!strcmp(mode, "resolve") && op == RDMA_NL_LS_OP_RESOLVE)
			check_resolve(nlh, arg);
		else if (!strcmp(mode, "ip") && op == RDMA_NL_LS_OP_IP_RESOLVE)
			check_ip(nlh);
		else
			printf(" wrong_op=1\n");
	}
	return 0;
}
