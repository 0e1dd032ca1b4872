/*
 * nldev-dump: the kernel's own replies to the nldev dumps that `rdma` makes, written to a pcap.
 *
 *   nldev-dump FILE.pcap
 *
 * nlmon cannot record NETLINK_RDMA: netlink_filter_tap (net/netlink/af_netlink.c) passes only
 * ROUTE, USERSOCK, SOCK_DIAG, NFLOG, XFRM, FIB_LOOKUP, NETFILTER and GENERIC to netlink taps. So
 * this asks the kernel itself, in the namespace it runs in, for the RDMA_NLDEV_CMD_GET dump, then,
 * per device as `rdma` does (the kernel's PORT_GET and RES_*_GET dumps need RDMA_NLDEV_ATTR_DEV_INDEX),
 * PORT_GET and RES_CM_ID_GET, and stores every datagram it receives unchanged, as nlmon would have: one
 * DLT_NETLINK (253) record per datagram, after the 16-byte Linux cooked pseudo header with
 * ARPHRD_NETLINK (824) and protocol NETLINK_RDMA (20). The requests it sent come first, as nlmon
 * shows a tool's requests too. Built statically on the lab host (scripts/lab/run) from this file.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static FILE *out;

static void put32(uint32_t v) { fwrite(&v, 4, 1, out); }
static void put16(uint16_t v) { fwrite(&v, 2, 1, out); }

/* One pcap record: the cooked header (pkttype 0 to us / 4 outgoing, ARPHRD_NETLINK, protocol in network order), then the datagram. */
static void record(const void *buf, size_t len, int outgoing) {
	struct timeval tv;
	gettimeofday(&tv, NULL);
	put32((uint32_t)tv.tv_sec);
	put32((uint32_t)tv.tv_usec);
	put32((uint32_t)(len + 16));
	put32((uint32_t)(len + 16));
	unsigned char h[16] = {0};
	h[0] = 0; h[1] = outgoing ? 4 : 0;      /* packet type, big-endian */
	h[2] = 824 >> 8; h[3] = 824 & 0xff;     /* ARPHRD_NETLINK */
	h[14] = 0; h[15] = NETLINK_RDMA;        /* protocol */
	fwrite(h, 16, 1, out);
	fwrite(buf, len, 1, out);
}

static uint32_t devices[64];
static int ndevices;

/* The device indexes of a GET reply message (RDMA_NLDEV_ATTR_DEV_INDEX, a u32 at the top level). */
static void note_device(struct nlmsghdr *h) {
	int len = h->nlmsg_len - NLMSG_HDRLEN;
	for (struct nlattr *a = (struct nlattr *)NLMSG_DATA(h); len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
		if ((a->nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_ATTR_DEV_INDEX && a->nla_len >= NLA_HDRLEN + 4 && ndevices < 64)
			memcpy(&devices[ndevices++], (char *)a + NLA_HDRLEN, 4);
	}
}

/* One dump: cmd, for device dev (or all devices when dev < 0). */
static int dump(int fd, uint16_t cmd, uint32_t seq, long dev) {
	struct { struct nlmsghdr h; struct nlattr a; uint32_t index; } req;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = dev < 0 ? NLMSG_HDRLEN : sizeof(req);
	req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = seq;
	req.a.nla_len = NLA_HDRLEN + 4;
	req.a.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
	req.index = (uint32_t)dev;
	if (send(fd, &req, req.h.nlmsg_len, 0) < 0) {
		fprintf(stderr, "nldev-dump: send(cmd %u): %s\n", cmd, strerror(errno));
		return -1;
	}
	record(&req, req.h.nlmsg_len, 1);
	static unsigned char buf[1 << 16];
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			fprintf(stderr, "nldev-dump: recv(cmd %u): %s\n", cmd, strerror(errno));
			return -1;
		}
		record(buf, (size_t)n, 0);
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				/* A dump that failed says so in its DONE message. */
				int err = h->nlmsg_len >= NLMSG_HDRLEN + 4 ? *(int *)NLMSG_DATA(h) : 0;
				if (err)
					fprintf(stderr, "nldev-dump: cmd %u device %ld: error %d\n", cmd, dev, err);
				return err ? -1 : 0;
			}
			if (cmd == RDMA_NLDEV_CMD_GET)
				note_device(h);
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);
				fprintf(stderr, "nldev-dump: cmd %u: error %d\n", cmd, e->error);
				return e->error ? -1 : 0;
			}
		}
	}
}

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: nldev-dump FILE.pcap\n");
		return 2;
	}
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0) {
		fprintf(stderr, "nldev-dump: socket(NETLINK_RDMA): %s\n", strerror(errno));
		return 1;
	}
	out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	put32(0xa1b2c3d4); put16(2); put16(4); put32(0); put32(0); put32(65535); put32(253);
	int rc = 0;
	uint32_t seq = 1;
	rc |= dump(fd, RDMA_NLDEV_CMD_GET, seq++, -1);
	for (int i = 0; i < ndevices; i++) {
		rc |= dump(fd, RDMA_NLDEV_CMD_PORT_GET, seq++, devices[i]);
		rc |= dump(fd, RDMA_NLDEV_CMD_RES_CM_ID_GET, seq++, devices[i]);
	}
	fclose(out);
	close(fd);
	return rc ? 1 : 0;
}
