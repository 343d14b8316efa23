// A libc-only Appex extension runtime in one header, written from docs/protocol.md alone: the
// launch contract, frames (with sealed memfds for large payloads) and the handshake. Include it
// in one C file: echo.c (the echo test point) and widget.c (a widget) do.
#ifndef APPEX_H
#define APPEX_H
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { HELLO = 1, REQUEST = 2, REPLY = 3, FAILURE = 4, CANCEL = 5, GOODBYE = 6, INVOCATION = 7 };
enum { PROTOCOL = 2 };

/// The program's name in its messages on standard error (the host logs them).
static const char *appex_name = "appex-c";
static int connection = -1;
static int passed_fd = -1;  // the memfd that came with the last shared-memory header
static uint64_t max_frame = 16u << 20, max_shared = 1u << 30, threshold = 256u << 10;

static void fail(const char *why) {
    fprintf(stderr, "%s: %s\n", appex_name, why);
    exit(1);
}

// MARK: - Frames (protocol.md, 4 and 7)

/// Reads exactly n bytes, keeping a descriptor passed with them. 0 at the end of the stream.
static int read_exactly(uint8_t *buffer, size_t n) {
    size_t done = 0;
    while (done < n) {
        char control[CMSG_SPACE(4 * sizeof(int))];
        struct iovec iov = { buffer + done, n - done };
        struct msghdr message = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                                  .msg_controllen = sizeof control };
        ssize_t got = recvmsg(connection, &message, MSG_CMSG_CLOEXEC);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                if (passed_fd >= 0) close(passed_fd);
                memcpy(&passed_fd, CMSG_DATA(c), sizeof(int));
            }
        }
        done += (size_t)got;
    }
    return 1;
}

static void write_all(const uint8_t *bytes, size_t length) {
    for (size_t done = 0; done < length;) {
        ssize_t sent = send(connection, bytes + done, length - done, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) exit(0);  // the host is gone
        done += (size_t)sent;
    }
}

static void put_header(uint8_t h[16], uint32_t length, uint8_t kind, uint8_t flags, uint64_t id) {
    for (int i = 0; i < 4; i++) h[i] = (uint8_t)(length >> (8 * i));
    h[4] = kind;
    h[5] = flags;
    h[6] = h[7] = 0;
    for (int i = 0; i < 8; i++) h[8 + i] = (uint8_t)(id >> (8 * i));
}

static void send_frame(uint8_t kind, uint64_t id, const uint8_t *payload, size_t length) {
    uint8_t header[16];
    if (length < threshold) {
        put_header(header, (uint32_t)length, kind, 0, id);
        write_all(header, 16);
        write_all(payload, length);
        return;
    }
    // At or above the threshold: the bytes go in a sealed memfd passed with the header.
    int fd = memfd_create("appex-payload", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) fail("memfd_create failed");
    for (size_t done = 0; done < length;) {
        ssize_t wrote = pwrite(fd, payload + done, length - done, (off_t)done);
        if (wrote <= 0) fail("cannot fill the memfd");
        done += (size_t)wrote;
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
        fail("cannot seal the memfd");
    put_header(header, (uint32_t)length, kind, 1, id);
    char control[CMSG_SPACE(sizeof(int))];
    memset(control, 0, sizeof control);
    struct iovec iov = { header, 16 };
    struct msghdr message = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                              .msg_controllen = sizeof control };
    struct cmsghdr *c = CMSG_FIRSTHDR(&message);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    if (sendmsg(connection, &message, MSG_NOSIGNAL) != 16) exit(0);
    close(fd);
}

/// The next frame, its payload malloc'd. 0 at the end of the stream; a frame this extension
/// does not understand ends it (protocol.md 4.4: the connection is over).
static int receive(uint8_t *kind, uint64_t *id, uint8_t **payload, size_t *length) {
    uint8_t h[16];
    if (!read_exactly(h, 16)) return 0;
    uint32_t n = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
    *kind = h[4];
    *id = 0;
    for (int i = 7; i >= 0; i--) *id = *id << 8 | h[8 + i];
    if (h[6] || h[7] || (h[5] & ~1)) fail("a frame header with reserved bits set");
    if (*kind < HELLO || *kind > INVOCATION) {
        fprintf(stderr, "%s: a frame of unknown kind %u: ending the connection\n", appex_name, *kind);
        exit(2);
    }
    *length = n;
    *payload = malloc(n ? n : 1);
    if (!*payload) fail("out of memory");
    if (h[5] & 1) {  // shared memory: read the memfd that came with the header
        if (n > max_shared || passed_fd < 0) fail("a shared-memory frame without its memfd, or too large");
        if (n) {
            void *map = mmap(NULL, n, PROT_READ, MAP_SHARED, passed_fd, 0);
            if (map == MAP_FAILED) fail("cannot map the memfd");
            memcpy(*payload, map, n);
            munmap(map, n);
        }
        close(passed_fd);
        passed_fd = -1;
        return 1;
    }
    if (n > max_frame) fail("a frame larger than the host's own limit");
    return n == 0 || read_exactly(*payload, n);
}

// MARK: - The hello's wire form (protocol.md 5): varints and strings

static size_t put_varint(uint8_t *out, uint64_t v) {
    size_t i = 0;
    while (v >= 0x80) {
        out[i++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[i++] = (uint8_t)v;
    return i;
}

static size_t put_string(uint8_t *out, const char *s) {
    size_t n = strlen(s), i = put_varint(out, n);
    memcpy(out + i, s, n);
    return i + n;
}

static uint64_t get_varint(const uint8_t *p, size_t length, size_t *i) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*i >= length) fail("the host's hello ends early");
        uint8_t c = p[(*i)++];
        v |= (uint64_t)(c & 0x7F) << shift;
        if (c < 0x80) return v;
    }
    fail("a varint wider than 64 bits");
    return 0;
}

static char *get_string(const uint8_t *p, size_t length, size_t *i) {
    uint64_t n = get_varint(p, length, i);
    if (n > length - *i) fail("a string runs past the host's hello");
    char *s = strndup((const char *)p + *i, (size_t)n);
    *i += (size_t)n;
    return s;
}

/// The launch contract (protocol.md 3) and the handshake (5): dies with the host, finds the
/// connection, reads the host's hello and answers it. Returns the point the host launched it for.
static const char *appex_start(void) {
    // The launch contract (protocol.md 3): die with the host; find the connection.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    const char *host_pid = getenv("APPEX_HOST_PID"), *fd = getenv("APPEX_CONNECTION_FD");
    const char *me = getenv("APPEX_BUNDLE_IDENTIFIER"), *point = getenv("APPEX_EXTENSION_POINT");
    if (!fd || !me || !point) fail("not launched by an Appex host (no APPEX_CONNECTION_FD)");
    if (getppid() != 0 && host_pid && getppid() != atoi(host_pid)) exit(0);  // the host already went
    connection = atoi(fd);
    fcntl(connection, F_SETFD, FD_CLOEXEC);

    // The host's hello.
    uint8_t kind, *p;
    uint64_t id;
    size_t n, i = 1;
    if (!receive(&kind, &id, &p, &n) || kind != HELLO || n == 0) fail("the host did not say hello");
    if (p[0] != PROTOCOL) fail("the host does not speak protocol 2");
    free(get_string(p, n, &i));  // the host's bundle identifier
    char *launched = get_string(p, n, &i);
    free(get_string(p, n, &i));  // the extension point
    if (i < n && p[i++]) {
        max_frame = get_varint(p, n, &i);
        max_shared = get_varint(p, n, &i);
        threshold = get_varint(p, n, &i);
    }
    if (strcmp(launched, me) != 0) fail("launched as another extension");
    free(launched);
    free(p);

    // Our hello: version, identifier, bound point, pid (zigzag varint), not declined.
    uint8_t hello[2048];
    if (strlen(me) + strlen(point) > 1900) fail("identifiers too long");
    size_t h = 0;
    hello[h++] = PROTOCOL;
    h += put_string(hello + h, me);
    h += put_string(hello + h, point);
    int64_t pid = getpid();
    h += put_varint(hello + h, (uint64_t)((pid << 1) ^ (pid >> 63)));
    hello[h++] = 0;
    send_frame(HELLO, 0, hello, h);
    return point;
}

#endif
