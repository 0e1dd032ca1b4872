/*
 * The C baseline for our SA-miss latency: N sequential SubnAdmGet(PathRecord) queries through
 * libibumad (rdma-core, infiniband/umad.h), each sent with umad_send and answered through
 * umad_recv, exactly the calls our Java SA client makes through jnr-ffi; the same component mask
 * (SERVICE_ID, DGID, SGID, REVERSIBLE, NUMB_PATH) and a new service ID per query.
 *
 * Build: gcc -O2 -o sa_pathrecord_get sa_pathrecord_get.c -libumad
 * Run under the umad2sim preload against OpenSM on ibsim (scripts/bench-pathrecord):
 *   sa_pathrecord_get DEVICE PORT SGID DGID N
 * Prints: queries=N mean_ns=.. median_ns=.. p99_ns=.. min_ns=..
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/umad.h>

#define MAD_SIZE 256

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: %s DEVICE PORT SGID DGID N\n", argv[0]);
		return 2;
	}
	const char *dev = argv[1];
	int portnum = atoi(argv[2]);
	uint8_t sgid[16], dgid[16];
	if (inet_pton(AF_INET6, argv[3], sgid) != 1 || inet_pton(AF_INET6, argv[4], dgid) != 1) {
		fprintf(stderr, "bad GID\n");
		return 2;
	}
	int n = atoi(argv[5]);
	umad_port_t port;
	if (umad_init() < 0 || umad_get_port(dev, portnum, &port) < 0) {
		fprintf(stderr, "umad_get_port failed\n");
		return 3;
	}
	int sm_lid = port.sm_lid, sm_sl = port.sm_sl;
	umad_release_port(&port);
	int portid = umad_open_port(dev, portnum);
	if (portid < 0) {
		fprintf(stderr, "umad_open_port: %d\n", portid);
		return 3;
	}
	int agent = umad_register(portid, 0x03, 2, 0, NULL);
	if (agent < 0) {
		fprintf(stderr, "umad_register: %d\n", agent);
		return 3;
	}
	void *send = calloc(1, umad_size() + MAD_SIZE);
	void *recv = calloc(1, umad_size() + MAD_SIZE);
	uint64_t *lat = calloc(n, sizeof(*lat));
	for (int i = 0; i < n; i++) {
		uint8_t *mad = umad_get_mad(send);
		memset(mad, 0, MAD_SIZE);
		mad[0] = 1;    /* base version */
		mad[1] = 0x03; /* SubnAdm */
		mad[2] = 2;    /* class version */
		mad[3] = 0x01; /* Get */
		uint64_t tid = htobe64(0x5a5a000000000000ull | (uint64_t)(i + 1));
		memcpy(mad + 8, &tid, 8);
		uint16_t attr = htobe16(0x0035); /* PathRecord */
		memcpy(mad + 16, &attr, 2);
		uint64_t comp = htobe64(0x3 | 1 << 2 | 1 << 3 | 1 << 11 | 1 << 12);
		memcpy(mad + 48, &comp, 8);
		uint8_t *pr = mad + 56;
		uint64_t sid = htobe64(0x0000000001060000ull + (uint64_t)i);
		memcpy(pr, &sid, 8);
		memcpy(pr + 8, dgid, 16);
		memcpy(pr + 24, sgid, 16);
		pr[49] = 0x80 | 1; /* reversible, numb_path 1 */
		umad_set_addr(send, sm_lid, 1, sm_sl, 0x80010000);
		umad_set_pkey(send, 0);
		uint64_t t0 = now_ns();
		if (umad_send(portid, agent, send, MAD_SIZE, 200, 2) < 0) {
			fprintf(stderr, "umad_send failed\n");
			return 3;
		}
		for (;;) {
			int len = MAD_SIZE;
			if (umad_recv(portid, recv, &len, 1000) < 0) {
				fprintf(stderr, "umad_recv failed at query %d\n", i);
				return 3;
			}
			uint8_t *r = umad_get_mad(recv);
			/* ibsim rewrites the high bits of the TID: match the low 32 bits. */
			if (memcmp(r + 12, mad + 12, 4) == 0)
				break;
		}
		lat[i] = now_ns() - t0;
		uint8_t *r = umad_get_mad(recv);
		if (umad_status(recv) != 0 || r[4] != 0 || r[5] != 0) {
			fprintf(stderr, "query %d failed: status %d mad status 0x%02x%02x\n", i, umad_status(recv), r[4], r[5]);
			return 3;
		}
	}
	uint64_t sum = 0;
	for (int i = 0; i < n; i++)
		sum += lat[i];
	qsort(lat, n, sizeof(*lat), cmp);
	printf("queries=%d mean_ns=%llu median_ns=%llu p99_ns=%llu min_ns=%llu\n", n, (unsigned long long)(sum / n),
	       (unsigned long long)lat[n / 2], (unsigned long long)lat[(int)(n * 0.99)], (unsigned long long)lat[0]);
	umad_unregister(portid, agent);
	umad_close_port(portid);
	return 0;
}
