/*
 * Golden RDMA_NL_LS messages laid out the way the kernel writes them, built only from the uapi
 * definitions in /usr/include (package linux-libc-dev): struct nlmsghdr, struct nlattr, the NLMSG_*
 * and NLA_* macros from <linux/netlink.h>, and from <rdma/rdma_netlink.h> RDMA_NL_GET_TYPE,
 * RDMA_NL_LS, RDMA_NL_LS_OP_*, struct rdma_ls_resolve_header, struct rdma_ls_ip_resolve_header,
 * RDMA_NLA_F_MANDATORY, LS_NLA_TYPE_*, LS_RESOLVE_PATH_USE_*.
 *
 * RESOLVE requests follow drivers/infiniband/core/sa_query.c ib_nl_make_request() and
 * ib_nl_set_path_rec_attrs(): nlmsg_put(pid 0, seq, type, NLM_F_REQUEST), the family header put
 * with NLMSG_ALIGN(sizeof(header)) and the device name copied with strscpy_pad, then one attribute
 * per component-mask bit in the order SERVICE_ID, DGID, SGID, TCLASS, PKEY, QOS_CLASS, each with
 * RDMA_NLA_F_MANDATORY, u64/u16 values in host order, GIDs big-endian (nla_put zeroes padding).
 * The attribute mixes are those of the kernel's callers: cma_query_ib_route() for AF_INET
 * (SERVICE_ID, DGID, SGID, PKEY, QOS_CLASS) and AF_INET6 (TCLASS instead of QOS_CLASS), IPoIB's
 * path_rec_start() (DGID, SGID, TCLASS, PKEY), all six, and DGID alone.
 * IP_RESOLVE requests follow drivers/infiniband/core/addr.c ib_nl_ip_send_msg(); SET_TIMEOUT is
 * what a responder sends for ib_nl_handle_set_timeout().
 *
 * Output: one line per message, tab separated:
 *   <class> <name> <hex bytes> <key=value ...>
 * class: "resolve" (a request the decoder must read), "bad" (one it must refuse; key reason=...),
 * "timeout", "ip". The values are printed from the same variables that built the message, so the
 * Java test's expectations come from here. "-" means absent.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#define BUF_SIZE 1024

static union {
	struct nlmsghdr n;
	char bytes[BUF_SIZE];
} msg;

static struct nlmsghdr *nlh;

static void begin(int op, int flags, unsigned seq)
{
	memset(&msg, 0, sizeof(msg));
	nlh = &msg.n;
	nlh->nlmsg_len = NLMSG_LENGTH(0);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_LS, op);
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = 0;
}

static void *tail(void)
{
	return msg.bytes + NLMSG_ALIGN(nlh->nlmsg_len);
}

static void put_family(const void *hdr, size_t len)
{
	memcpy(tail(), hdr, len);
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLMSG_ALIGN(len);
}

/* nla_put: header, payload, zeroed padding to NLA_ALIGN. */
static void put_attr_len(int type, const void *data, size_t len, size_t claimed_len)
{
	struct nlattr *a = tail();
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + claimed_len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(NLA_HDRLEN + len);
}

static void put_attr(int type, const void *data, size_t len)
{
	put_attr_len(type, data, len, len);
}

static void emit(const char *cls, const char *name, const char *values)
{
	printf("%s\t%s\t", cls, name);
	for (unsigned i = 0; i < nlh->nlmsg_len; i++)
		printf("%02x", (unsigned char)msg.bytes[i]);
	printf("\t%s\n", values);
}

struct gid {
	uint8_t raw[16];
	const char *text;
};

static struct gid mkgid(const char *text)
{
	struct gid g;
	g.text = text;
	if (inet_pton(AF_INET6, text, g.raw) != 1) {
		fprintf(stderr, "bad gid %s\n", text);
		exit(2);
	}
	return g;
}

static const char *use_name(int use)
{
	switch (use) {
	case LS_RESOLVE_PATH_USE_ALL: return "all";
	case LS_RESOLVE_PATH_USE_UNIDIRECTIONAL: return "unidirectional";
	case LS_RESOLVE_PATH_USE_GMP: return "gmp";
	}
	return "?";
}

/* Attribute presence bits, in the kernel's order. */
enum { A_SID = 1, A_DGID = 2, A_SGID = 4, A_TCLASS = 8, A_PKEY = 16, A_QOS = 32 };

static void resolve(const char *cls, const char *name, unsigned seq, const char *dev, int port, int use, int mask,
		    uint64_t sid, struct gid dgid, struct gid sgid, uint8_t tclass, uint16_t pkey, uint16_t qos,
		    const char *extra_values, void (*extra)(void))
{
	struct rdma_ls_resolve_header h;
	char values[1024];

	begin(RDMA_NL_LS_OP_RESOLVE, NLM_F_REQUEST, seq);
	memset(&h, 0, sizeof(h));
	strncpy((char *)h.device_name, dev, LS_DEVICE_NAME_MAX - 1);
	h.port_num = port;
	h.path_use = use;
	put_family(&h, sizeof(h));
	if (mask & A_SID)
		put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_SERVICE_ID, &sid, sizeof(sid));
	if (mask & A_DGID)
		put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_DGID, dgid.raw, sizeof(struct rdma_nla_ls_gid));
	if (mask & A_SGID)
		put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_SGID, sgid.raw, sizeof(struct rdma_nla_ls_gid));
	if (mask & A_TCLASS)
		put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_TCLASS, &tclass, sizeof(tclass));
	if (mask & A_PKEY)
		put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_PKEY, &pkey, sizeof(pkey));
	if (mask & A_QOS)
		put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_QOS_CLASS, &qos, sizeof(qos));
	if (extra)
		extra();

	char sidv[32], tcv[8], pkv[16], qv[16];
	if (mask & A_SID) snprintf(sidv, sizeof(sidv), "0x%016llx", (unsigned long long)sid); else strcpy(sidv, "-");
	if (mask & A_TCLASS) snprintf(tcv, sizeof(tcv), "%u", tclass); else strcpy(tcv, "-");
	if (mask & A_PKEY) snprintf(pkv, sizeof(pkv), "0x%04x", pkey); else strcpy(pkv, "-");
	if (mask & A_QOS) snprintf(qv, sizeof(qv), "%u", qos); else strcpy(qv, "-");
	snprintf(values, sizeof(values),
		 "seq=%u type=0x%04x flags=0x%x device=%s port=%d path_use=%d use=%s service_id=%s dgid=%s sgid=%s tclass=%s pkey=%s qos_class=%s%s%s",
		 seq, RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE), NLM_F_REQUEST, dev, port, use, use_name(use), sidv,
		 (mask & A_DGID) ? dgid.text : "-", (mask & A_SGID) ? sgid.text : "-", tcv, pkv, qv,
		 extra_values ? " " : "", extra_values ? extra_values : "");
	emit(cls, name, values);
}

static void extra_unknown_optional(void)
{
	uint32_t v = 0xdeadbeef;
	put_attr(LS_NLA_TYPE_MAX + 1, &v, sizeof(v));
}

static void extra_unknown_mandatory(void)
{
	uint32_t v = 7;
	put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_MAX, &v, sizeof(v));
}

static void extra_short_sgid(void)
{
	uint8_t g[15] = {0xfe, 0x80};
	put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_SGID, g, sizeof(g));
}

static void extra_wide_pkey(void)
{
	uint32_t v = 0xffff;
	put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_PKEY, &v, sizeof(v));
}

static void extra_overlong_attr(void)
{
	/* nla_len claims 40 bytes of payload but the message ends after 4. */
	uint32_t v = 1;
	put_attr_len(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_TCLASS, &v, sizeof(v), 40);
}

static void extra_tiny_attr(void)
{
	struct nlattr *a = tail();
	a->nla_type = LS_NLA_TYPE_TCLASS;
	a->nla_len = 2; /* below NLA_HDRLEN */
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLA_HDRLEN;
}

int main(void)
{
	struct gid dgid = mkgid("fe80::2:c903:0:77");
	struct gid sgid = mkgid("fe80::2:c903:0:1");
	struct gid dgid6 = mkgid("fec0::100:2:c903:0:9");
	int uses[] = {LS_RESOLVE_PATH_USE_ALL, LS_RESOLVE_PATH_USE_UNIDIRECTIONAL, LS_RESOLVE_PATH_USE_GMP};
	unsigned seq = 100;
	char name[64];

	for (unsigned i = 0; i < sizeof(uses) / sizeof(uses[0]); i++) {
		int u = uses[i];
		/* RDMA_PS_TCP (0x0106) port 7471 service ID, as cma_get_service_id builds it. */
		uint64_t sid = ((uint64_t)0x0106 << 16) | 7471;
		snprintf(name, sizeof(name), "cma-ipv4-%s", use_name(u));
		resolve("resolve", name, seq++, "mlx5_0", 1, u, A_SID | A_DGID | A_SGID | A_PKEY | A_QOS, sid, dgid, sgid, 0, 0xffff, 0, NULL, NULL);
		snprintf(name, sizeof(name), "cma-ipv6-%s", use_name(u));
		resolve("resolve", name, seq++, "mlx5_1", 2, u, A_SID | A_DGID | A_SGID | A_TCLASS | A_PKEY, sid, dgid6, sgid, 0xa0, 0x8001, 0, NULL, NULL);
		snprintf(name, sizeof(name), "ipoib-%s", use_name(u));
		resolve("resolve", name, seq++, "mlx4_0", 1, u, A_DGID | A_SGID | A_TCLASS | A_PKEY, 0, dgid, sgid, 0, 0x7fff, 0, NULL, NULL);
		snprintf(name, sizeof(name), "all-attrs-%s", use_name(u));
		resolve("resolve", name, seq++, "ibp0s9", 1, u, A_SID | A_DGID | A_SGID | A_TCLASS | A_PKEY | A_QOS,
			0x0000000001110000ULL | 18515, dgid, sgid, 0x20, 0x8002, 0x0abc, NULL, NULL);
	}
	resolve("resolve", "dgid-only", seq++, "mlx5_0", 1, LS_RESOLVE_PATH_USE_GMP, A_DGID, 0, dgid, sgid, 0, 0, 0, NULL, NULL);
	resolve("resolve", "long-device-name", seq++, "a23456789b123456789c123456789d123456789e123456789f123456789g12", 1,
		LS_RESOLVE_PATH_USE_ALL, A_DGID | A_SGID, 0, dgid, sgid, 0, 0, 0, NULL, NULL);
	resolve("resolve", "high-seq", 0xfffffffeu, "mlx5_0", 255, LS_RESOLVE_PATH_USE_ALL, A_DGID | A_SGID | A_PKEY, 0, dgid, sgid, 0, 0x8001, 0, NULL, NULL);
	resolve("resolve", "unknown-optional-attribute", seq++, "mlx5_0", 1, LS_RESOLVE_PATH_USE_ALL, A_DGID | A_SGID, 0, dgid, sgid, 0, 0, 0,
		"ignored=1", extra_unknown_optional);

	resolve("bad", "unknown-mandatory-attribute", seq++, "mlx5_0", 1, LS_RESOLVE_PATH_USE_ALL, A_DGID | A_SGID, 0, dgid, sgid, 0, 0, 0,
		"reason=unknown%20mandatory", extra_unknown_mandatory);
	resolve("bad", "sgid-15-bytes", seq++, "mlx5_0", 1, LS_RESOLVE_PATH_USE_ALL, A_DGID, 0, dgid, sgid, 0, 0, 0,
		"reason=SGID%20has%2015%20bytes", extra_short_sgid);
	resolve("bad", "pkey-4-bytes", seq++, "mlx5_0", 1, LS_RESOLVE_PATH_USE_ALL, A_DGID, 0, dgid, sgid, 0, 0, 0,
		"reason=PKEY%20has%204%20bytes", extra_wide_pkey);
	resolve("bad", "attribute-past-the-end", seq++, "mlx5_0", 1, LS_RESOLVE_PATH_USE_ALL, A_DGID, 0, dgid, sgid, 0, 0, 0,
		"reason=bytes%20remain", extra_overlong_attr);
	resolve("bad", "attribute-below-its-header", seq++, "mlx5_0", 1, LS_RESOLVE_PATH_USE_ALL, A_DGID, 0, dgid, sgid, 0, 0, 0,
		"reason=below%20its", extra_tiny_attr);

	/* A header cut short: 40 of the 66 bytes of rdma_ls_resolve_header. */
	{
		char values[256];
		begin(RDMA_NL_LS_OP_RESOLVE, NLM_F_REQUEST, seq);
		memcpy(tail(), "mlx5_0", 6);
		nlh->nlmsg_len = NLMSG_LENGTH(40);
		snprintf(values, sizeof(values), "seq=%u reason=shorter%%20than", seq++);
		emit("bad", "truncated-resolve-header", values);
	}
	/* A device name without its NUL. */
	{
		struct rdma_ls_resolve_header h;
		char values[256];
		begin(RDMA_NL_LS_OP_RESOLVE, NLM_F_REQUEST, seq);
		memset(&h, 'x', sizeof(h.device_name));
		h.port_num = 1;
		h.path_use = LS_RESOLVE_PATH_USE_ALL;
		put_family(&h, sizeof(h));
		put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_DGID, dgid.raw, 16);
		snprintf(values, sizeof(values), "seq=%u reason=no%%20NUL", seq++);
		emit("bad", "device-name-without-nul", values);
	}
	/* An op beyond RDMA_NL_LS_NUM_OPS. */
	{
		char values[256];
		begin(RDMA_NL_LS_NUM_OPS, NLM_F_REQUEST, seq);
		snprintf(values, sizeof(values), "seq=%u reason=is%%20not%%20RESOLVE", seq++);
		emit("bad", "unknown-op", values);
	}

	/* SET_TIMEOUT as a responder sends it. */
	{
		char values[256];
		uint32_t t = 1500;
		begin(RDMA_NL_LS_OP_SET_TIMEOUT, NLM_F_REQUEST, 7);
		put_attr(LS_NLA_TYPE_TIMEOUT, &t, sizeof(t));
		snprintf(values, sizeof(values), "seq=7 type=0x%04x flags=0x%x timeout=%u", RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_SET_TIMEOUT),
			 NLM_F_REQUEST, t);
		emit("timeout", "set-timeout-1500", values);
	}

	/* IP_RESOLVE as ib_nl_ip_send_msg writes it: header, then the address with the mandatory bit. */
	{
		struct rdma_ls_ip_resolve_header h = {.ifindex = 9};
		struct in_addr a4;
		char values[256];
		inet_pton(AF_INET, "192.168.7.20", &a4);
		begin(RDMA_NL_LS_OP_IP_RESOLVE, NLM_F_REQUEST, 41);
		put_family(&h, sizeof(h));
		put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_IPV4, &a4, sizeof(a4));
		snprintf(values, sizeof(values), "seq=41 ifindex=9 ip=192.168.7.20");
		emit("ip", "ip-resolve-v4", values);
	}
	{
		struct rdma_ls_ip_resolve_header h = {.ifindex = 12};
		struct in6_addr a6;
		char values[256];
		inet_pton(AF_INET6, "fd00:7::20", &a6);
		begin(RDMA_NL_LS_OP_IP_RESOLVE, NLM_F_REQUEST, 42);
		put_family(&h, sizeof(h));
		put_attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_IPV6, &a6, sizeof(a6));
		snprintf(values, sizeof(values), "seq=42 ifindex=12 ip=fd00:7::20");
		emit("ip", "ip-resolve-v6", values);
	}
	return 0;
}
