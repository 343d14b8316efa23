#define _GNU_SOURCE
#include "CAppexSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#if defined(__linux__)
#include <sys/vfs.h>
#endif
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define CAPPEX_MAX_FDS 16

void cappex_name_thread(const char *name) {
#ifdef __linux__
    char truncated[16];
    strncpy(truncated, name, sizeof(truncated) - 1);
    truncated[sizeof(truncated) - 1] = 0;
    (void)prctl(PR_SET_NAME, truncated, 0, 0, 0);
#else
    (void)name;
#endif
}

pid_t cappex_thread_id(void) {
#ifdef __linux__
    return (pid_t)syscall(SYS_gettid);
#else
    return getpid();
#endif
}

int cappex_socketpair_cloexec(int type, int fds[2]) {
#ifdef SOCK_CLOEXEC
    return socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, fds);
#else
    if (socketpair(AF_UNIX, type, 0, fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
#endif
}

static ssize_t send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int fd_count, int flags);

ssize_t cappex_send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int fd_count) {
    return send_with_fds(socket, bytes, length, fds, fd_count, 0);
}

ssize_t cappex_try_send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int fd_count) {
    return send_with_fds(socket, bytes, length, fds, fd_count, MSG_DONTWAIT);
}

static ssize_t send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int fd_count, int flags) {
    if (fd_count < 0 || fd_count > CAPPEX_MAX_FDS) { errno = EINVAL; return -1; }
    struct iovec iov = { .iov_base = (void *)bytes, .iov_len = length };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * CAPPEX_MAX_FDS)]; } control;
    struct msghdr message;
    memset(&message, 0, sizeof(message));
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    if (fd_count > 0) {
        memset(&control, 0, sizeof(control));
        message.msg_control = control.space;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * fd_count);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * fd_count);
        memcpy(CMSG_DATA(header), fds, sizeof(int) * fd_count);
    }
#ifdef MSG_NOSIGNAL
    return sendmsg(socket, &message, MSG_NOSIGNAL | flags);
#else
    return sendmsg(socket, &message, flags);
#endif
}

ssize_t cappex_receive_with_fds(int socket, void *buffer, size_t capacity, int *fds, int fd_capacity, int *fd_count, int *truncated, int dont_wait) {
    struct iovec iov = { .iov_base = buffer, .iov_len = capacity };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * CAPPEX_MAX_FDS)]; } control;
    struct msghdr message;
    memset(&message, 0, sizeof(message));
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof(control.space);
    *fd_count = 0;
    *truncated = 0;
    int flags = dont_wait ? MSG_DONTWAIT : 0;
#ifdef MSG_CMSG_CLOEXEC
    flags |= MSG_CMSG_CLOEXEC;
#endif
    ssize_t received = recvmsg(socket, &message, flags);
    if (received < 0) return received;
    if (message.msg_flags & MSG_CTRUNC) *truncated = 1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *incoming = (int *)CMSG_DATA(header);
        for (int index = 0; index < count; index++) {
            if (*fd_count < fd_capacity) {
                fds[(*fd_count)++] = incoming[index];
            } else {
                close(incoming[index]);  // more than the caller can take: never leak them
                *truncated = 1;
            }
        }
    }
    return received;
}

void cappex_populate(void *address, size_t length) {
#ifdef __linux__
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || length == 0) return;
    uintptr_t start = ((uintptr_t)address + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t end = ((uintptr_t)address + length) & ~((uintptr_t)page - 1);
    if (end <= start) return;
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    // Huge pages where the kernel allows them on request: a 64 MiB buffer is 32 faults, not 16,384.
    if (end - start >= (2u << 20)) (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
    (void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
#else
    (void)address; (void)length;
#endif
}

int cappex_allocate(int fd, size_t length) {
#ifdef __linux__
    if (length == 0) return 0;  // fallocate refuses an empty range; an empty memfd needs nothing
    int result;
    do { result = fallocate(fd, 0, 0, (off_t)length); } while (result != 0 && errno == EINTR);
    return result;
#else
    return ftruncate(fd, (off_t)length);
#endif
}

int cappex_set_pass_credentials(int socket, int on) {
#ifdef SO_PASSCRED
    return setsockopt(socket, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
#else
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_peek_sender_credentials(int socket, pid_t *pid, uid_t *uid, gid_t *gid) {
#ifdef SCM_CREDENTIALS
    char byte;
    struct iovec vector = { .iov_base = &byte, .iov_len = 1 };
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * CAPPEX_MAX_FDS)];
    } control;
    memset(&control, 0, sizeof(control));
    struct msghdr message = { 0 };
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof(control.space);
    ssize_t received;
    do { received = recvmsg(socket, &message, MSG_PEEK | MSG_CMSG_CLOEXEC); } while (received < 0 && errno == EINTR);
    if (received < 0) return -1;
    if (received == 0) return 1;
    int found = 0;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_CREDENTIALS) {
            struct ucred credentials;
            memcpy(&credentials, CMSG_DATA(header), sizeof(credentials));
            *pid = credentials.pid;
            *uid = credentials.uid;
            *gid = credentials.gid;
            found = 1;
        } else if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
            // A peek installs the descriptors it sees: close them (the real read gets its own).
            int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int index = 0; index < count; index++) {
                int fd;
                memcpy(&fd, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
                close(fd);
            }
        }
    }
    return found ? 0 : 2;
#else
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_peer_credentials(int socket, pid_t *pid, uid_t *uid, gid_t *gid) {
#ifdef SO_PEERCRED
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
#else
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_memfd_create(const char *name) {
#ifdef __linux__
    return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_memfd_seal_all(int fd) {
#ifdef F_ADD_SEALS
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_memfd_seals(int fd) {
#ifdef F_GET_SEALS
    return fcntl(fd, F_GET_SEALS);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_set_parent_death_signal(int signal) {
#ifdef __linux__
    return prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0);
#else
    (void)signal;
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_pidfd_open(pid_t pid) {
#if defined(__linux__) && defined(SYS_pidfd_open)
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_pidfd_send_signal(int pidfd, int signal) {
#if defined(__linux__) && defined(SYS_pidfd_send_signal)
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
#else
    (void)pidfd; (void)signal;
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_pipe_cloexec(int fds[2], int nonblocking) {
#ifdef __linux__
    return pipe2(fds, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0));
#else
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
        if (nonblocking) fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    }
    return 0;
#endif
}

int cappex_wal_index_header(const void *shm, uint64_t header[6]) {
    const uint64_t *first = (const uint64_t *)shm;
    const uint64_t *second = first + 6;
    // SQLite's writer stores the second copy, then (after a barrier) the first; its readers load
    // the first, then the second. Agreeing copies are a header no writer is in the middle of.
    for (int i = 0; i < 6; i++) header[i] = __atomic_load_n(&first[i], __ATOMIC_ACQUIRE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < 6; i++) {
        if (__atomic_load_n(&second[i], __ATOMIC_ACQUIRE) != header[i]) return 0;
    }
    return 1;
}

ssize_t cappex_receive_packet(int socket, void *buffer, size_t capacity, int dont_wait,
                              pid_t *pid, uid_t *uid, gid_t *gid, int *attested, int *truncated) {
    struct iovec vector = { .iov_base = buffer, .iov_len = capacity };
#ifdef SCM_CREDENTIALS
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * CAPPEX_MAX_FDS)]; } control;
#else
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * CAPPEX_MAX_FDS)]; } control;
#endif
    memset(&control, 0, sizeof(control));
    struct msghdr message;
    memset(&message, 0, sizeof(message));
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof(control.space);
    *attested = 0;
    *truncated = 0;
    int flags = MSG_TRUNC | (dont_wait ? MSG_DONTWAIT : 0);
#ifdef MSG_CMSG_CLOEXEC
    flags |= MSG_CMSG_CLOEXEC;
#endif
    ssize_t received = recvmsg(socket, &message, flags);
    if (received < 0) return received;
    if ((size_t)received > capacity || (message.msg_flags & MSG_TRUNC)) *truncated = 1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
#ifdef SCM_CREDENTIALS
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_CREDENTIALS) {
            struct ucred credentials;
            memcpy(&credentials, CMSG_DATA(header), sizeof(credentials));
            *pid = credentials.pid;
            *uid = credentials.uid;
            *gid = credentials.gid;
            *attested = 1;
        }
#endif
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
            // Nobody passes descriptors on a packet socket: close any that arrive.
            int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int index = 0; index < count; index++) {
                int fd;
                memcpy(&fd, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
                close(fd);
            }
        }
    }
    return received;
}

int cappex_pidfd_getfd(int pidfd, int target) {
#if defined(__linux__) && defined(SYS_pidfd_getfd)
    return (int)syscall(SYS_pidfd_getfd, pidfd, target, 0);
#else
    (void)pidfd; (void)target;
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_bytes_available(int socket) {
    int count = 0;
    if (ioctl(socket, FIONREAD, &count) != 0) return -1;
    return count;
}

ssize_t cappex_peek(int socket, void *buffer, size_t capacity) {
    return recv(socket, buffer, capacity, MSG_PEEK | MSG_DONTWAIT);
}

long long cappex_file_system_type(int descriptor) {
#if defined(__linux__)
    struct statfs info;
    if (fstatfs(descriptor, &info) != 0) return -1;
    return (long long)info.f_type;
#else
    (void)descriptor;
    errno = ENOSYS;
    return -1;
#endif
}
