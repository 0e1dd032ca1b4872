/*
 * cmdemux-cni: the executable a CNI runtime calls for the cmdemux-cni chained plugin.
 *
 * It does no CNI work itself. It hands the whole invocation (the CNI_* environment and stdin)
 * to the running cmdemux daemon over its host socket, in one CNI message (docs/PROTOCOL.md,
 * type 0x0C), and writes back what the daemon answers: stdout, stderr and the exit code. An ADD
 * then costs a process start and one round trip instead of a JVM start.
 *
 * When the daemon cannot be reached (no socket, nobody listening, an older daemon without the
 * CNI message) it execs the same plugin in a JVM, `java -jar cmdemux.jar cni`, with the same
 * environment and the same stdin, and that process answers the runtime.
 *
 * scripts/install-cni builds it: gcc -O2 -DCMDEMUX_JAR=... -DCMDEMUX_JAVA=... cmdemux-cni.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef CMDEMUX_JAR
#define CMDEMUX_JAR "/opt/cmdemux/cmdemux.jar"
#endif
#ifndef CMDEMUX_JSA
#define CMDEMUX_JSA "/opt/cmdemux/cmdemux.jsa"
#endif
#ifndef CMDEMUX_JAVA
#define CMDEMUX_JAVA "/usr/bin/java"
#endif
#define DEFAULT_SOCKET "/run/cmdemux/cmdemux.sock"

/* docs/PROTOCOL.md: header, records, the CNI message and its records. */
#define WIRE_VERSION 1
#define HEADER_SIZE 16
#define RECORD_HEADER_SIZE 8
#define FORMAT_RECORDS 1
#define FLAG_REPLY 0x0001
#define RECORD_MANDATORY 0x8000
#define T_CNI 0x0c
#define T_ERROR 0x7f
#define R_CNI_ENV 20
#define R_CNI_STDIN 21
#define R_CNI_RESULT 22
#define R_CNI_STDERR 23
#define R_TEXT 1
#define EAGAIN_STATUS 11
#define MAX_REQUEST_FRAME (64 * 1024)
#define MAX_REPLY_FRAME (16 * 1024 * 1024)
#define MAX_STDIN (16 * 1024 * 1024)
/* rdma.waitMillis is at most 60 s; the daemon answers within that and a little more. */
#define REPLY_TIMEOUT_SECONDS 75
#define CNI_TRY_AGAIN_LATER 11

extern char **environ;

struct buf {
    unsigned char *data;
    size_t len, cap;
};

static int grow(struct buf *b, size_t more) {
    if (b->len + more <= b->cap) {
        return 0;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more) {
        cap *= 2;
    }
    unsigned char *d = realloc(b->data, cap);
    if (!d) {
        return -1;
    }
    b->data = d;
    b->cap = cap;
    return 0;
}

static int put(struct buf *b, const void *p, size_t n) {
    if (grow(b, n)) {
        return -1;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

static int put_u16(struct buf *b, unsigned v) {
    unsigned char x[2] = {(unsigned char)(v >> 8), (unsigned char)v};
    return put(b, x, 2);
}

static int put_u32(struct buf *b, uint32_t v) {
    unsigned char x[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v};
    return put(b, x, 4);
}

static uint32_t get_u32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static unsigned get_u16(const unsigned char *p) {
    return ((unsigned)p[0] << 8) | p[1];
}

static int put_record(struct buf *b, unsigned type, const void *value, size_t n) {
    return put_u16(b, type) || put_u16(b, RECORD_MANDATORY) || put_u32(b, (uint32_t)(RECORD_HEADER_SIZE + n)) || put(b, value, n);
}

/* ---- just enough JSON to find two top-level strings: "controlSocket" and "cniVersion" ---- */

struct scan {
    const char *p, *end;
};

static void skip_ws(struct scan *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) {
        s->p++;
    }
}

/* Reads a string into out (when out is not NULL). Returns 0, 1 when the value was kept only in
 * part (too long, or \u escapes this reader does not decode), -1 when it is not a JSON string. */
static int read_string(struct scan *s, char *out, size_t cap) {
    size_t n = 0;
    int partial = 0;
    if (s->p >= s->end || *s->p != '"') {
        return -1;
    }
    s->p++;
    while (s->p < s->end) {
        char c = *s->p++;
        if (c == '"') {
            if (out) {
                out[n] = 0;
            }
            return partial;
        }
        if ((unsigned char)c < 0x20) {
            return -1;
        }
        if (c == '\\') {
            if (s->p >= s->end) {
                return -1;
            }
            char e = *s->p++;
            switch (e) {
            case '"': case '\\': case '/': c = e; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u':
                if (s->end - s->p < 4) {
                    return -1;
                }
                s->p += 4;
                partial = 1;
                continue;
            default:
                return -1;
            }
        }
        if (out) {
            if (n + 1 < cap) {
                out[n++] = c;
            } else {
                partial = 1;
            }
        }
    }
    return -1;
}

static int skip_value(struct scan *s, int depth) {
    skip_ws(s);
    if (s->p >= s->end || depth > 64) {
        return -1;
    }
    if (*s->p == '"') {
        return read_string(s, NULL, 0) < 0 ? -1 : 0;
    }
    if (*s->p == '{' || *s->p == '[') {
        char close = *s->p == '{' ? '}' : ']';
        s->p++;
        skip_ws(s);
        if (s->p < s->end && *s->p == close) {
            s->p++;
            return 0;
        }
        for (;;) {
            if (close == '}') {
                skip_ws(s);
                if (read_string(s, NULL, 0) < 0) {
                    return -1;
                }
                skip_ws(s);
                if (s->p >= s->end || *s->p != ':') {
                    return -1;
                }
                s->p++;
            }
            if (skip_value(s, depth + 1)) {
                return -1;
            }
            skip_ws(s);
            if (s->p >= s->end) {
                return -1;
            }
            if (*s->p == ',') {
                s->p++;
                continue;
            }
            if (*s->p == close) {
                s->p++;
                return 0;
            }
            return -1;
        }
    }
    const char *start = s->p; /* a number, true, false or null */
    while (s->p < s->end && !strchr(",]} \t\r\n", *s->p)) {
        s->p++;
    }
    return s->p == start ? -1 : 0;
}

/* Fills socket and version from the top-level keys; returns -1 when controlSocket is present but
 * cannot be used as given (then only the JVM, with a real JSON parser, should answer). */
static int top_level(const unsigned char *json, size_t len, char *socket, size_t scap, char *version, size_t vcap) {
    struct scan s = {(const char *)json, (const char *)json + len};
    char key[32];
    skip_ws(&s);
    if (s.p >= s.end || *s.p != '{') {
        return 0;
    }
    s.p++;
    for (;;) {
        skip_ws(&s);
        if (s.p < s.end && *s.p == '}') {
            return 0;
        }
        int k = read_string(&s, key, sizeof key);
        if (k < 0) {
            return 0;
        }
        skip_ws(&s);
        if (s.p >= s.end || *s.p != ':') {
            return 0;
        }
        s.p++;
        skip_ws(&s);
        if (k == 0 && strcmp(key, "controlSocket") == 0 && s.p < s.end && *s.p == '"') {
            if (read_string(&s, socket, scap) != 0) {
                return -1;
            }
        } else if (k == 0 && strcmp(key, "cniVersion") == 0 && s.p < s.end && *s.p == '"') {
            if (read_string(&s, version, vcap) != 0) {
                version[0] = 0;
            }
        } else if (skip_value(&s, 1)) {
            return 0;
        }
        skip_ws(&s);
        if (s.p < s.end && *s.p == ',') {
            s.p++;
            continue;
        }
        return 0;
    }
}

/* ---- I/O ---- */

static int read_all(int fd, struct buf *b, size_t max) {
    for (;;) {
        if (grow(b, 65536)) {
            return -1;
        }
        ssize_t n = read(fd, b->data + b->len, b->cap - b->len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return -1;
        }
        if (n == 0) {
            return 0;
        }
        b->len += (size_t)n;
        if (b->len > max) {
            return -1;
        }
    }
}

static int write_all(int fd, const void *p, size_t n, int sock) {
    const unsigned char *c = p;
    while (n > 0) {
        ssize_t w = sock ? send(fd, c, n, MSG_NOSIGNAL) : write(fd, c, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_exact(int fd, unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static void json_escaped(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
}

/* A CNI error result on stdout, as the spec has it, and a non-zero exit. */
static int cni_error(const char *version, int code, const char *msg, const char *details) {
    printf("{\"cniVersion\":\"");
    json_escaped(stdout, version[0] ? version : "1.1.0");
    printf("\",\"code\":%d,\"msg\":\"", code);
    json_escaped(stdout, msg);
    printf("\",\"details\":\"");
    json_escaped(stdout, details);
    printf("\"}\n");
    fflush(stdout);
    fprintf(stderr, "cmdemux-cni: error %d: %s\n", code, msg);
    return 1;
}

/* ---- the daemon ---- */

enum outcome { ANSWERED, UNREACHABLE, BUSY, NO_ANSWER };

static int connect_to(const char *path) {
    struct sockaddr_un a;
    if (strlen(path) >= sizeof a.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    strcpy(a.sun_path, path);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    struct timeval t = {REPLY_TIMEOUT_SECONDS, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &t, sizeof t);
    return fd;
}

/* Sends the CNI message and, when the daemon answers it, writes stdout and stderr and sets *exit_code. */
static enum outcome ask_daemon(const char *path, const struct buf *frame, int *exit_code) {
    int fd = connect_to(path);
    if (fd < 0) {
        return UNREACHABLE;
    }
    if (write_all(fd, frame->data, frame->len, 1)) {
        close(fd);
        return UNREACHABLE;
    }
    unsigned char h[HEADER_SIZE];
    for (;;) {
        if (read_exact(fd, h, HEADER_SIZE)) {
            int timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
            close(fd);
            return timed_out ? NO_ANSWER : UNREACHABLE;
        }
        uint32_t len = get_u32(h + 8);
        if (h[0] != WIRE_VERSION || len < HEADER_SIZE || len > MAX_REPLY_FRAME) {
            close(fd);
            return UNREACHABLE;
        }
        unsigned char *body = malloc(len - HEADER_SIZE + 1);
        if (!body || read_exact(fd, body, len - HEADER_SIZE)) {
            free(body);
            close(fd);
            return UNREACHABLE;
        }
        unsigned type = h[1], status = get_u16(h + 2), flags = get_u16(h + 6);
        uint32_t seq = get_u32(h + 12);
        if (type == T_ERROR) {
            free(body);
            close(fd);
            return status == EAGAIN_STATUS ? BUSY : UNREACHABLE;
        }
        if (type != T_CNI || !(flags & FLAG_REPLY) || seq != 1) {
            free(body);
            continue;
        }
        close(fd);
        if (status == EAGAIN_STATUS) {
            free(body);
            return BUSY;
        }
        if (status != 0) {
            free(body); /* EOPNOTSUPP from an older daemon, EPERM, ...: the JVM answers instead */
            return UNREACHABLE;
        }
        const unsigned char *result = NULL, *err = NULL;
        size_t result_len = 0, err_len = 0;
        for (size_t at = 0; at + RECORD_HEADER_SIZE <= len - HEADER_SIZE;) {
            unsigned rtype = get_u16(body + at);
            uint32_t rlen = get_u32(body + at + 4);
            if (rlen < RECORD_HEADER_SIZE || rlen > len - HEADER_SIZE - at) {
                break;
            }
            if (rtype == R_CNI_RESULT) {
                result = body + at + RECORD_HEADER_SIZE;
                result_len = rlen - RECORD_HEADER_SIZE;
            } else if (rtype == R_CNI_STDERR) {
                err = body + at + RECORD_HEADER_SIZE;
                err_len = rlen - RECORD_HEADER_SIZE;
            }
            at += rlen;
        }
        if (!result || result_len < 4) {
            free(body);
            return UNREACHABLE;
        }
        if (err_len) {
            write_all(STDERR_FILENO, err, err_len, 0);
        }
        write_all(STDOUT_FILENO, result + 4, result_len - 4, 0);
        *exit_code = result[0];
        free(body);
        return ANSWERED;
    }
}

/* ---- the JVM fallback ---- */

static void exec_jvm(const struct buf *in) {
    int fd = memfd_create("cmdemux-cni-stdin", 0);
    if (fd < 0 || write_all(fd, in->data, in->len, 0) || lseek(fd, 0, SEEK_SET) < 0 || dup2(fd, STDIN_FILENO) < 0) {
        return;
    }
    if (fd != STDIN_FILENO) {
        close(fd);
    }
    /* A short-lived JVM: the serial collector and the C1 compiler start fastest, and the class
     * archive install-cni dumped saves most of the class loading (a missing or stale one is ignored). */
    char *argv[] = {"java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:SharedArchiveFile=" CMDEMUX_JSA,
                    "-XX:-UsePerfData", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-jar", CMDEMUX_JAR, "cni", NULL};
    execv(CMDEMUX_JAVA, argv);
    execvp("java", argv);
}

int main(void) {
    struct buf in = {0}, frame = {0};
    char socket_path[108] = DEFAULT_SOCKET, version[32] = "";
    if (read_all(STDIN_FILENO, &in, MAX_STDIN)) {
        return cni_error("", 5, "cannot read the network configuration from stdin", "stdin was unreadable or larger than 16 MiB");
    }
    int usable = top_level(in.data, in.len, socket_path, sizeof socket_path, version, sizeof version) == 0;

    /* One CNI message: the CNI_* variables, then stdin (docs/PROTOCOL.md, "CNI"). */
    int ok = put(&frame, (unsigned char[]){WIRE_VERSION, T_CNI, 0, 0}, 4) == 0 && put_u16(&frame, FORMAT_RECORDS) == 0
             && put_u16(&frame, 0) == 0 && put_u32(&frame, 0) == 0 && put_u32(&frame, 1) == 0;
    for (char **e = environ; ok && *e; e++) {
        if (strncmp(*e, "CNI_", 4) == 0) {
            ok = put_record(&frame, R_CNI_ENV, *e, strlen(*e)) == 0;
        }
    }
    ok = ok && put_record(&frame, R_CNI_STDIN, in.data, in.len) == 0;
    if (ok && usable && frame.len <= MAX_REQUEST_FRAME) {
        uint32_t n = (uint32_t)frame.len;
        frame.data[8] = (unsigned char)(n >> 24);
        frame.data[9] = (unsigned char)(n >> 16);
        frame.data[10] = (unsigned char)(n >> 8);
        frame.data[11] = (unsigned char)n;
        int code = 0;
        switch (ask_daemon(socket_path, &frame, &code)) {
        case ANSWERED:
            return code;
        case BUSY:
            return cni_error(version, CNI_TRY_AGAIN_LATER, "the cmdemux daemon is busy", "retry the operation");
        case NO_ANSWER:
            return cni_error(version, CNI_TRY_AGAIN_LATER, "the cmdemux daemon did not answer in time", socket_path);
        case UNREACHABLE:
            break;
        }
    }
    exec_jvm(&in);
    char details[512];
    snprintf(details, sizeof details, "the daemon does not answer on %s, and `%s -jar %s cni` could not be started: %s", socket_path,
             CMDEMUX_JAVA, CMDEMUX_JAR, strerror(errno));
    return cni_error(version, CNI_TRY_AGAIN_LATER, "cmdemux is not running on this node", details);
}
