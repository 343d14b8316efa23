#define _GNU_SOURCE
#include "CAppexFixtureHostile.h"
#include <errno.h>
#include <sched.h>
#include <sys/personality.h>
#include <linux/netlink.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int hostile_ptrace_attach(pid_t pid) {
    if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) != 0) return -1;
    ptrace(PTRACE_DETACH, pid, NULL, NULL);
    return 0;
}

int hostile_unshare_user(void) { return unshare(CLONE_NEWUSER); }

pid_t hostile_fork_waiting(void) {
    pid_t child = fork();
    if (child == 0) {
        for (;;) pause();
    }
    return child;
}

int hostile_personality_query(void) { return personality(0xffffffff) < 0 ? -1 : 0; }

int hostile_unix_connect(const char *name, int abstract) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_un address;
    memset(&address, 0, sizeof(address));
    address.sun_family = AF_UNIX;
    size_t length = strlen(name);
    if (length + 2 > sizeof(address.sun_path)) length = sizeof(address.sun_path) - 2;
    // An abstract name starts with a zero byte and is not terminated.
    memcpy(address.sun_path + (abstract ? 1 : 0), name, length);
    socklen_t size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length);  // the NUL, or the leading zero
    int result = connect(fd, (struct sockaddr *)&address, size);
    int saved = errno;
    close(fd);
    errno = saved;
    return result == 0 ? 0 : -1;
}

int hostile_netlink_route(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

int hostile_socket_pair(void) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return -1;
    close(fds[0]);
    close(fds[1]);
    return 0;
}
