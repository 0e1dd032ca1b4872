/*
 * cmdemux-env: run inside a pod, it asks the cmdemux daemon for the pod's own RDMA interfaces and prints
 * the environment the RDMA libraries need (NCCL, UCX, NVSHMEM), or execs a command with it.
 *
 *   cmdemux-env [--gid-type roce-v2|roce-v1|ib] [--wait SECONDS] [--json] [-- CMD ARGS...]
 *
 * It connects to the abstract socket @cmdemux, which the daemon opens inside every network namespace,
 * and sends QUERY self (docs/PROTOCOL.md, §4). The daemon answers for the namespace the socket lives in,
 * which the kernel decides; nothing this program sends names a namespace. The answer is read as hostile
 * input: every length is checked and the JSON reader has fixed limits.
 *
 * Exit codes (README, "cmdemux-env"): 0 done, 1 no RDMA interface in this namespace, 2 usage, 3 no daemon
 * answers, 4 no GID of the asked type, 5 the daemon refused the query or its answer is unreadable,
 * 126/127 CMD could not be run (as sh says).
 *
 * scripts/install-cni builds it beside cmdemux-cni: gcc -static -O2 cmdemux-env.c (static, so it runs in any
 * image, a busybox one included).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* docs/PROTOCOL.md: header, records, QUERY and its records. */
#define WIRE_VERSION 1
#define HEADER_SIZE 16
#define RECORD_HEADER_SIZE 8
#define FORMAT_RECORDS 1
#define FLAG_REPLY 0x0001
#define RECORD_MANDATORY 0x8000
#define T_QUERY 0x04
#define T_ERROR 0x7f
#define R_TEXT 1
#define R_QUERY 5
#define R_JSON 6
#define QUERY_SELF 6
#define EAGAIN_STATUS 11
#define MAX_REPLY_FRAME (16 * 1024 * 1024)
#define DEFAULT_ABSTRACT "cmdemux"

#define EXIT_NO_INTERFACE 1
#define EXIT_USAGE 2
#define EXIT_NO_DAEMON 3
#define EXIT_NO_GID 4
#define EXIT_BAD_ANSWER 5

/* ---- the answer's JSON: a small tree with fixed limits ---- */

#define MAX_NODES 65536
#define MAX_DEPTH 32

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
    enum jtype type;
    const char *key;  /* member name inside an object, decoded, NUL-terminated */
    const char *str;  /* J_STR, decoded, NUL-terminated */
    int has_int;      /* J_NUM: an integer that fits in a long */
    long num;
    int child, next;  /* indices into the pool, -1 for none */
};

struct jparser {
    const char *p, *end;
    struct jnode *nodes;
    int count;
    char *strings; /* decoded strings; never longer than the input */
    size_t used, cap;
};

static void skip_ws(struct jparser *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) {
        j->p++;
    }
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') {
            v |= (unsigned)(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            v |= (unsigned)(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            v |= (unsigned)(c - 'A' + 10);
        } else {
            return -1;
        }
    }
    *out = v;
    return 0;
}

static int put_char(struct jparser *j, unsigned char c) {
    if (j->used + 1 >= j->cap) {
        return -1;
    }
    j->strings[j->used++] = (char)c;
    return 0;
}

static int put_utf8(struct jparser *j, unsigned cp) {
    if (cp < 0x80) {
        return put_char(j, (unsigned char)cp);
    }
    if (cp < 0x800) {
        return put_char(j, (unsigned char)(0xc0 | (cp >> 6))) || put_char(j, (unsigned char)(0x80 | (cp & 0x3f)));
    }
    if (cp < 0x10000) {
        return put_char(j, (unsigned char)(0xe0 | (cp >> 12))) || put_char(j, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)))
               || put_char(j, (unsigned char)(0x80 | (cp & 0x3f)));
    }
    return put_char(j, (unsigned char)(0xf0 | (cp >> 18))) || put_char(j, (unsigned char)(0x80 | ((cp >> 12) & 0x3f)))
           || put_char(j, (unsigned char)(0x80 | ((cp >> 6) & 0x3f))) || put_char(j, (unsigned char)(0x80 | (cp & 0x3f)));
}

/* A JSON string into the string area; NULL when it is not one. A NUL (\u0000) is refused: the names
 * this program uses become C strings and environment values. */
static const char *parse_string(struct jparser *j) {
    if (j->p >= j->end || *j->p != '"') {
        return NULL;
    }
    j->p++;
    const char *start = j->strings + j->used;
    while (j->p < j->end) {
        unsigned char c = (unsigned char)*j->p++;
        if (c == '"') {
            return put_char(j, 0) ? NULL : start;
        }
        if (c < 0x20) {
            return NULL;
        }
        if (c != '\\') {
            if (put_char(j, c)) {
                return NULL;
            }
            continue;
        }
        if (j->p >= j->end) {
            return NULL;
        }
        char e = *j->p++;
        unsigned cp;
        switch (e) {
        case '"': case '\\': case '/': cp = (unsigned char)e; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u':
            if (j->end - j->p < 4 || hex4(j->p, &cp)) {
                return NULL;
            }
            j->p += 4;
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                return NULL;
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                unsigned lo;
                if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' || hex4(j->p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff) {
                    return NULL;
                }
                j->p += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (cp == 0) {
                return NULL;
            }
            break;
        default:
            return NULL;
        }
        if (put_utf8(j, cp)) {
            return NULL;
        }
    }
    return NULL;
}

static int new_node(struct jparser *j, enum jtype t) {
    if (j->count >= MAX_NODES) {
        return -1;
    }
    struct jnode *n = &j->nodes[j->count];
    memset(n, 0, sizeof *n);
    n->type = t;
    n->child = n->next = -1;
    return j->count++;
}

static int parse_value(struct jparser *j, int depth);

static int parse_container(struct jparser *j, int depth, int object) {
    int self = new_node(j, object ? J_OBJ : J_ARR), last = -1;
    if (self < 0) {
        return -1;
    }
    char close = object ? '}' : ']';
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return self;
    }
    for (;;) {
        const char *key = NULL;
        skip_ws(j);
        if (object) {
            if (!(key = parse_string(j))) {
                return -1;
            }
            skip_ws(j);
            if (j->p >= j->end || *j->p != ':') {
                return -1;
            }
            j->p++;
        }
        int v = parse_value(j, depth + 1);
        if (v < 0) {
            return -1;
        }
        j->nodes[v].key = key;
        if (last < 0) {
            j->nodes[self].child = v;
        } else {
            j->nodes[last].next = v;
        }
        last = v;
        skip_ws(j);
        if (j->p >= j->end) {
            return -1;
        }
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p == close) {
            j->p++;
            return self;
        }
        return -1;
    }
}

static int parse_number(struct jparser *j) {
    const char *s = j->p;
    int integral = 1;
    if (j->p < j->end && *j->p == '-') {
        j->p++;
    }
    const char *digits = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        j->p++;
    }
    if (j->p == digits) {
        return -1;
    }
    if (j->p < j->end && *j->p == '.') {
        integral = 0;
        j->p++;
        const char *f = j->p;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
            j->p++;
        }
        if (j->p == f) {
            return -1;
        }
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        integral = 0;
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) {
            j->p++;
        }
        const char *x = j->p;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
            j->p++;
        }
        if (j->p == x) {
            return -1;
        }
    }
    int n = new_node(j, J_NUM);
    if (n < 0) {
        return -1;
    }
    /* Only short integers are kept as numbers; an index or port beyond 18 digits is no index. */
    if (integral && j->p - s <= 18) {
        char tmp[20];
        memcpy(tmp, s, (size_t)(j->p - s));
        tmp[j->p - s] = 0;
        j->nodes[n].num = strtol(tmp, NULL, 10);
        j->nodes[n].has_int = 1;
    }
    return n;
}

static int parse_literal(struct jparser *j, const char *word, enum jtype t) {
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0) {
        return -1;
    }
    j->p += n;
    return new_node(j, t);
}

static int parse_value(struct jparser *j, int depth) {
    skip_ws(j);
    if (j->p >= j->end || depth > MAX_DEPTH) {
        return -1;
    }
    switch (*j->p) {
    case '{': return parse_container(j, depth, 1);
    case '[': return parse_container(j, depth, 0);
    case '"': {
        const char *s = parse_string(j);
        int n = s ? new_node(j, J_STR) : -1;
        if (n >= 0) {
            j->nodes[n].str = s;
        }
        return n;
    }
    case 't': return parse_literal(j, "true", J_BOOL);
    case 'f': return parse_literal(j, "false", J_BOOL);
    case 'n': return parse_literal(j, "null", J_NULL);
    default: return parse_number(j);
    }
}

/* The root's index, or -1 when the text is not exactly one JSON value within the limits. */
static int parse_json(struct jparser *j, const unsigned char *text, size_t len) {
    j->p = (const char *)text;
    j->end = (const char *)text + len;
    j->count = 0;
    j->used = 0;
    j->cap = len + 1;
    j->nodes = malloc(sizeof(struct jnode) * MAX_NODES);
    j->strings = malloc(j->cap);
    if (!j->nodes || !j->strings) {
        return -1;
    }
    int root = parse_value(j, 0);
    skip_ws(j);
    return root >= 0 && j->p == j->end ? root : -1;
}

static const struct jnode *member(const struct jparser *j, const struct jnode *obj, const char *key) {
    if (!obj || obj->type != J_OBJ) {
        return NULL;
    }
    for (int c = obj->child; c >= 0; c = j->nodes[c].next) {
        if (strcmp(j->nodes[c].key, key) == 0) {
            return &j->nodes[c];
        }
    }
    return NULL;
}

/* ---- the daemon ---- */

struct buf {
    unsigned char *data;
    size_t len;
};

static int read_exact(int fd, unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            if (r == 0) {
                errno = ECONNRESET;
            }
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static uint32_t get_u32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static unsigned get_u16(const unsigned char *p) {
    return ((unsigned)p[0] << 8) | p[1];
}

struct options {
    const char *abstract_name, *socket_path, *gid_type;
    int json, wait_seconds, timeout_seconds;
    char **command;
};

/* One query. Returns 0 with the JSON record in *json, or an exit code with the reason in why. */
static int query_self(const struct options *o, struct buf *json, char *why, size_t whycap, int *retryable) {
    struct sockaddr_un a;
    socklen_t alen;
    *retryable = 0;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (o->socket_path) {
        if (strlen(o->socket_path) >= sizeof a.sun_path) {
            snprintf(why, whycap, "socket path %s is too long", o->socket_path);
            return EXIT_USAGE;
        }
        strcpy(a.sun_path, o->socket_path);
        alen = sizeof a;
    } else {
        /* An abstract name: a NUL, then the name, and the address ends where the name does. */
        size_t n = strlen(o->abstract_name);
        if (n + 1 > sizeof a.sun_path) {
            snprintf(why, whycap, "abstract name %s is too long", o->abstract_name);
            return EXIT_USAGE;
        }
        memcpy(a.sun_path + 1, o->abstract_name, n);
        alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    }
    char where[120];
    snprintf(where, sizeof where, "%s%s", o->socket_path ? "" : "@", o->socket_path ? o->socket_path : o->abstract_name);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, alen) < 0) {
        snprintf(why, whycap,
                 "no cmdemux daemon answers on %s in this network namespace (%s): is `cmdemux serve` running on this node, "
                 "and did this pod get its network from it (the DaemonSet in scripts/deploy/)? A namespace created a moment "
                 "ago gets its socket shortly after: retry with --wait SECONDS",
                 where, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        *retryable = 1;
        return EXIT_NO_DAEMON;
    }
    struct timeval t = {o->timeout_seconds, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &t, sizeof t);
    unsigned char q[HEADER_SIZE + RECORD_HEADER_SIZE + 2] = {
        WIRE_VERSION, T_QUERY, 0, 0, 0, FORMAT_RECORDS, 0, 0, 0, 0, 0, sizeof q, 0, 0, 0, 1,
        0, R_QUERY, RECORD_MANDATORY >> 8, 0, 0, 0, 0, RECORD_HEADER_SIZE + 2, 0, QUERY_SELF};
    if (send(fd, q, sizeof q, MSG_NOSIGNAL) != (ssize_t)sizeof q) {
        snprintf(why, whycap, "the daemon on %s closed the connection: %s", where, strerror(errno));
        close(fd);
        *retryable = 1;
        return EXIT_NO_DAEMON;
    }
    unsigned char h[HEADER_SIZE];
    for (;;) {
        if (read_exact(fd, h, HEADER_SIZE)) {
            int timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
            if (timed_out) {
                snprintf(why, whycap, "the daemon on %s did not answer within %d s (--timeout)", where, o->timeout_seconds);
            } else {
                snprintf(why, whycap, "the daemon on %s sent no whole answer (%s)", where, strerror(errno));
            }
            close(fd);
            return EXIT_BAD_ANSWER;
        }
        uint32_t len = get_u32(h + 8);
        if (h[0] != WIRE_VERSION || len < HEADER_SIZE || len > MAX_REPLY_FRAME) {
            snprintf(why, whycap, "the daemon on %s answered with a frame of version %u and length %u, which this cmdemux-env cannot read "
                     "(docs/PROTOCOL.md version 1): are the daemon and cmdemux-env of one release?", where, h[0], len);
            close(fd);
            return EXIT_BAD_ANSWER;
        }
        unsigned char *body = malloc(len - HEADER_SIZE + 1);
        if (!body || read_exact(fd, body, len - HEADER_SIZE)) {
            snprintf(why, whycap, "the daemon on %s sent a frame of %u bytes and closed before its end", where, len);
            free(body);
            close(fd);
            return EXIT_BAD_ANSWER;
        }
        unsigned type = h[1], status = get_u16(h + 2), flags = get_u16(h + 6);
        size_t blen = len - HEADER_SIZE;
        const unsigned char *text = NULL, *value = NULL;
        size_t text_len = 0, value_len = 0;
        int bad = 0;
        for (size_t at = 0; at < blen;) {
            if (blen - at < RECORD_HEADER_SIZE) {
                bad = 1;
                break;
            }
            unsigned rtype = get_u16(body + at);
            uint32_t rlen = get_u32(body + at + 4);
            if (rlen < RECORD_HEADER_SIZE || rlen > blen - at) {
                bad = 1;
                break;
            }
            if (rtype == R_TEXT && !text) {
                text = body + at + RECORD_HEADER_SIZE;
                text_len = rlen - RECORD_HEADER_SIZE;
            } else if (rtype == R_JSON && !value) {
                value = body + at + RECORD_HEADER_SIZE;
                value_len = rlen - RECORD_HEADER_SIZE;
            }
            at += rlen;
        }
        if (type == T_ERROR || (type == T_QUERY && (flags & FLAG_REPLY) && get_u32(h + 12) == 1)) {
            close(fd);
            if (bad) {
                snprintf(why, whycap, "the daemon on %s sent records whose lengths do not add up", where);
                free(body);
                return EXIT_BAD_ANSWER;
            }
            if (status != 0) {
                snprintf(why, whycap, "the daemon on %s refused the query (errno %u): %.*s", where, status,
                         (int)(text_len > 400 ? 400 : text_len), text ? (const char *)text : "");
                *retryable = status == EAGAIN_STATUS;
                free(body);
                return *retryable ? EXIT_NO_DAEMON : EXIT_BAD_ANSWER;
            }
            if (type == T_ERROR || !value) {
                snprintf(why, whycap, "the daemon on %s answered without a JSON record", where);
                free(body);
                return EXIT_BAD_ANSWER;
            }
            json->data = malloc(value_len + 1);
            if (!json->data) {
                free(body);
                snprintf(why, whycap, "out of memory");
                return EXIT_BAD_ANSWER;
            }
            memcpy(json->data, value, value_len);
            json->data[value_len] = 0;
            json->len = value_len;
            free(body);
            return 0;
        }
        free(body); /* not our reply: the protocol lets replies come in any order */
    }
}

/* ---- the answer's interfaces ---- */

#define MAX_IFACES 64

struct iface {
    const char *ifname, *device;
    long port, index;
};

/* Fills out[] with the interfaces that have a GID of the type; *total counts every interface. */
static int interfaces(const struct jparser *j, int root, const char *type, struct iface *out, int *n, int *total, char *why,
                      size_t whycap) {
    const struct jnode *list = member(j, &j->nodes[root], "interfaces");
    *n = *total = 0;
    if (!list || list->type != J_ARR) {
        snprintf(why, whycap, "the daemon's answer has no \"interfaces\" list");
        return -1;
    }
    for (int c = list->child; c >= 0; c = j->nodes[c].next) {
        const struct jnode *i = &j->nodes[c];
        const struct jnode *ifname = member(j, i, "ifname"), *device = member(j, i, "device"), *port = member(j, i, "port");
        const struct jnode *index = member(j, member(j, i, "gidIndex"), type);
        if (!ifname || ifname->type != J_STR || !device || device->type != J_STR || !port || port->type != J_NUM || !port->has_int) {
            snprintf(why, whycap, "an interface in the daemon's answer lacks its ifname, device or port");
            return -1;
        }
        (*total)++;
        if (!index) {
            continue;
        }
        if (index->type != J_NUM || !index->has_int || index->num < 0 || index->num > 65535 || port->num < 1 || port->num > 255) {
            snprintf(why, whycap, "interface %.64s: the daemon's GID index or port is not a number in range", ifname->str);
            return -1;
        }
        if (*n < MAX_IFACES) {
            out[(*n)++] = (struct iface){ifname->str, device->str, port->num, index->num};
        }
    }
    return 0;
}

/* ---- output ---- */

/* Names of devices and interfaces go into environment values and sh words: printable ASCII without a comma
 * (the lists' separator) or a colon (device:port), as the kernel's own names are (dev_valid_name refuses
 * whitespace, '/' and ':'); anything else in an answer is refused. A quote is allowed: sh_quoted keeps it. */
static int plain_name(const char *s) {
    if (!*s || strlen(s) > 64) {
        return 0;
    }
    for (; *s; s++) {
        if (*s <= 0x20 || *s >= 0x7f || *s == ',' || *s == ':') {
            return 0;
        }
    }
    return 1;
}

struct var {
    const char *name;
    char value[1024];
};

/* dst holds prefix and a comma-separated list; adds item unless the list has it already. */
static void add_unique(char *dst, size_t cap, const char *prefix, const char *item) {
    size_t plen = strlen(prefix), ilen = strlen(item);
    if (!dst[0]) {
        snprintf(dst, cap, "%s%s", prefix, item);
        return;
    }
    for (const char *p = dst + plen; *p;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l == ilen && strncmp(p, item, l) == 0) {
            return;
        }
        p += l + (c ? 1 : 0);
    }
    size_t n = strlen(dst);
    snprintf(dst + n, cap - n, ",%s", item);
}

static void sh_quoted(const char *s) {
    putchar('\'');
    for (; *s; s++) {
        if (*s == '\'') {
            fputs("'\\''", stdout);
        } else {
            putchar(*s);
        }
    }
    putchar('\'');
}

static void usage(FILE *f) {
    fprintf(f, "usage: cmdemux-env [--gid-type roce-v2|roce-v1|ib] [--wait SECONDS] [--json] [--abstract-name NAME | --socket PATH]\n"
               "                   [--timeout SECONDS] [-- CMD ARGS...]\n"
               "Asks the cmdemux daemon for this pod's RDMA interfaces and prints NCCL_IB_HCA, NCCL_IB_GID_INDEX,\n"
               "NCCL_SOCKET_IFNAME, UCX_IB_GID_INDEX, UCX_NET_DEVICES and NVSHMEM_IB_GID_INDEX as sh assignments\n"
               "(eval \"$(cmdemux-env)\"), or runs CMD with them set. --json prints the daemon's answer as it came.\n"
               "Exit: 0 ok, 1 no RDMA interface, 2 usage, 3 no daemon, 4 no GID of the type, 5 refused or unreadable answer.\n");
}

static int seconds_arg(const char *s, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 86400) {
        return -1;
    }
    *out = (int)v;
    return 0;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    struct options o = {getenv("CMDEMUX_ABSTRACT_NAME") ? getenv("CMDEMUX_ABSTRACT_NAME") : DEFAULT_ABSTRACT, NULL, "roce-v2", 0, 0, 10, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cmdemux-env: -- needs a command to run\n");
                return EXIT_USAGE;
            }
            o.command = argv + i + 1;
            break;
        } else if (strcmp(a, "--json") == 0) {
            o.json = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if ((strcmp(a, "--wait") == 0 || strcmp(a, "--timeout") == 0) && v) {
            if (seconds_arg(v, strcmp(a, "--wait") == 0 ? &o.wait_seconds : &o.timeout_seconds)) {
                fprintf(stderr, "cmdemux-env: %s takes whole seconds from 0 to 86400, not '%s'\n", a, v);
                return EXIT_USAGE;
            }
            i++;
        } else if (strcmp(a, "--gid-type") == 0 && v) {
            if (strcmp(v, "roce-v2") != 0 && strcmp(v, "roce-v1") != 0 && strcmp(v, "ib") != 0) {
                fprintf(stderr, "cmdemux-env: --gid-type is roce-v2, roce-v1 or ib, not '%s'\n", v);
                return EXIT_USAGE;
            }
            o.gid_type = v;
            i++;
        } else if (strcmp(a, "--abstract-name") == 0 && v) {
            o.abstract_name = v;
            i++;
        } else if (strcmp(a, "--socket") == 0 && v) {
            o.socket_path = v;
            i++;
        } else {
            fprintf(stderr, "cmdemux-env: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (o.timeout_seconds == 0) {
        o.timeout_seconds = 10;
    }

    double deadline = now() + o.wait_seconds;
    char why[1024];
    struct jparser j;
    struct iface found[MAX_IFACES];
    int n = 0, total = 0, code;
    struct buf json = {0};
    for (;;) {
        int retry = 0, root = -1;
        free(json.data);
        json.data = NULL;
        code = query_self(&o, &json, why, sizeof why, &retry);
        if (code == 0) {
            root = parse_json(&j, json.data, json.len);
            if (root < 0 || j.nodes[root].type != J_OBJ) {
                snprintf(why, sizeof why, "the daemon's answer is not the JSON object of QUERY self (docs/PROTOCOL.md)");
                code = EXIT_BAD_ANSWER;
            } else if (interfaces(&j, root, o.gid_type, found, &n, &total, why, sizeof why)) {
                code = EXIT_BAD_ANSWER;
            } else if (total == 0) {
                const struct jnode *inode = member(&j, member(&j, &j.nodes[root], "netns"), "inode");
                snprintf(why, sizeof why, "this pod (network namespace inode %ld) has no RDMA interface: none of its interfaces is a "
                         "macvlan, ipvlan or IPoIB child of an RDMA port's netdev (a veth has no GIDs). Attach the pod to the RDMA "
                         "network (scripts/deploy/rdma-net.conflist; `cmdemux gids check` on the node says what is wrong)",
                         inode && inode->has_int ? inode->num : -1L);
                code = EXIT_NO_INTERFACE;
                retry = 1;
            } else if (n == 0) {
                snprintf(why, sizeof why, "this pod's RDMA interfaces have no %s GID yet: an interface gets its GIDs a moment after "
                         "its IP (wait with --wait SECONDS), or its port has no GIDs of this type (ask for another with --gid-type; "
                         "`cmdemux gids` on the node lists the port's table)", o.gid_type);
                code = EXIT_NO_GID;
                retry = 1;
            }
            if (code != 0) {
                free(j.nodes);
                free(j.strings);
            }
        }
        if (code == 0 || !retry || now() >= deadline) {
            break;
        }
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    if (code != 0) {
        fprintf(stderr, "cmdemux-env: %s\n", why);
        return code;
    }
    if (o.json) {
        fwrite(json.data, 1, json.len, stdout);
        putchar('\n');
        return fflush(stdout) ? EXIT_BAD_ANSWER : 0;
    }

    struct var vars[] = {{"NCCL_IB_HCA", ""}, {"NCCL_IB_GID_INDEX", ""}, {"NCCL_SOCKET_IFNAME", ""},
                         {"UCX_IB_GID_INDEX", ""}, {"UCX_NET_DEVICES", ""}, {"NVSHMEM_IB_GID_INDEX", ""}};
    size_t nvars = sizeof vars / sizeof vars[0];
    for (int i = 0; i < n; i++) {
        if (!plain_name(found[i].ifname) || !plain_name(found[i].device)) {
            fprintf(stderr, "cmdemux-env: the daemon named an interface or device with characters no kernel name has; refusing it\n");
            return EXIT_BAD_ANSWER;
        }
        char hca[160];
        snprintf(hca, sizeof hca, "%s:%ld", found[i].device, found[i].port);
        /* "=" makes NCCL match names exactly: soft0 must not also select soft01. */
        add_unique(vars[0].value, sizeof vars[0].value, "=", hca);
        add_unique(vars[2].value, sizeof vars[2].value, "=", found[i].ifname);
        add_unique(vars[4].value, sizeof vars[4].value, "", hca);
        if (found[i].index != found[0].index) {
            fprintf(stderr, "cmdemux-env: warning: %s uses GID index %ld but %s uses %ld; these libraries take one index for all "
                    "ports, so %ld is set\n", found[i].ifname, found[i].index, found[0].ifname, found[0].index, found[0].index);
        }
    }
    snprintf(vars[1].value, sizeof vars[1].value, "%ld", found[0].index);
    snprintf(vars[3].value, sizeof vars[3].value, "%ld", found[0].index);
    snprintf(vars[5].value, sizeof vars[5].value, "%ld", found[0].index);

    if (o.command) {
        for (size_t i = 0; i < nvars; i++) {
            if (setenv(vars[i].name, vars[i].value, 1)) {
                fprintf(stderr, "cmdemux-env: cannot set %s: %s\n", vars[i].name, strerror(errno));
                return EXIT_BAD_ANSWER;
            }
        }
        execvp(o.command[0], o.command);
        int e = errno;
        fprintf(stderr, "cmdemux-env: cannot run %s: %s\n", o.command[0], strerror(e));
        return e == ENOENT ? 127 : 126;
    }
    for (size_t i = 0; i < nvars; i++) {
        printf("%s=", vars[i].name);
        sh_quoted(vars[i].value);
        putchar('\n');
    }
    printf("export");
    for (size_t i = 0; i < nvars; i++) {
        printf(" %s", vars[i].name);
    }
    putchar('\n');
    return fflush(stdout) ? EXIT_BAD_ANSWER : 0;
}
