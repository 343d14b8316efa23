// Linux facilities Swift's Glibc module does not import (they sit behind _GNU_SOURCE or are
// macros): descriptor passing, peer credentials, memfd, parent-death signal, pidfd.
// Only AppexIPC's and AppexHost's Platform files call these.
#ifndef CAPPEX_SYSTEM_H
#define CAPPEX_SYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#ifdef __linux__
#include <sys/epoll.h>     // AppexSystem's event thread (Glibc's module map leaves it out)
#include <sys/inotify.h>
#endif

/// socketpair(AF_UNIX, type | SOCK_CLOEXEC); returns 0 or -1 with errno.
int cappex_socketpair_cloexec(int type, int fds[2]);

/// sendmsg of `length` bytes with up to `fd_count` descriptors (SCM_RIGHTS); MSG_NOSIGNAL.
/// Returns the bytes sent or -1 with errno.
ssize_t cappex_send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int fd_count);

/// As cappex_send_with_fds, without blocking (MSG_DONTWAIT): -1 with EAGAIN when the socket's
/// buffer is full.
ssize_t cappex_try_send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int fd_count);

/// recvmsg into `buffer`, receiving up to `fd_capacity` descriptors (close-on-exec) into `fds`;
/// `*fd_count` is set to how many arrived, `*truncated` to 1 when descriptors were cut off.
/// Returns the bytes read (0 at end of stream) or -1 with errno.
ssize_t cappex_receive_with_fds(int socket, void *buffer, size_t capacity, int *fds, int fd_capacity, int *fd_count, int *truncated);

/// The peer's pid, uid and gid of a connected Unix socket (SO_PEERCRED); 0 or -1 with errno.
int cappex_peer_credentials(int socket, pid_t *pid, uid_t *uid, gid_t *gid);

/// Faults in the whole pages of [address, address + length) for writing in one call
/// (madvise MADV_POPULATE_WRITE, Linux 5.14+); quietly does nothing where unsupported.
/// Faulting 64 MiB page by page costs tens of milliseconds in a VM.
void cappex_populate(void *address, size_t length);

/// Allocates `length` bytes of backing store for `fd` at once (fallocate; ftruncate elsewhere).
/// 0 or -1 with errno.
int cappex_allocate(int fd, size_t length);

/// setsockopt(SO_PASSCRED, on): the kernel attaches each sender's credentials to what it
/// sends to this socket from now on. 0 or -1 with errno.
int cappex_set_pass_credentials(int socket, int on);

/// Peeks at the next message's sender credentials (SCM_CREDENTIALS, attached by the kernel when
/// SO_PASSCRED was on as it was sent): 0 with pid, uid, gid set; 1 when the stream ended; 2 when
/// bytes came without credentials; -1 with errno. Descriptors the peek installs are closed.
int cappex_peek_sender_credentials(int socket, pid_t *pid, uid_t *uid, gid_t *gid);

/// memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING); the descriptor or -1 with errno.
int cappex_memfd_create(const char *name);

/// Seals a memfd against any further change (shrink, grow, write, sealing); 0 or -1.
int cappex_memfd_seal_all(int fd);

/// The seals on a memfd, or -1 with errno.
int cappex_memfd_seals(int fd);

/// prctl(PR_SET_PDEATHSIG, signal); 0 or -1 with errno.
int cappex_set_parent_death_signal(int signal);

/// pidfd_open(pid, 0) through syscall(2); the descriptor or -1 with errno (ENOSYS on old kernels).
int cappex_pidfd_open(pid_t pid);

/// pidfd_send_signal(pidfd, signal, NULL, 0): signals exactly the process the pidfd names, even
/// after its pid was reaped and reused (then ESRCH). 0 or -1 with errno.
int cappex_pidfd_send_signal(int pidfd, int signal);

/// pipe2(fds, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0)); 0 or -1 with errno.
int cappex_pipe_cloexec(int fds[2], int nonblocking);


/// prlimit(pid, resource, {soft, hard}, NULL): sets another process's resource limit.
/// `resource` is 0 address space, 1 open files, 2 CPU seconds, 3 processes. 0 or -1 with errno.
int cappex_set_limit(pid_t pid, int resource, uint64_t soft, uint64_t hard);

/// Spawns `path` as an extension process: `connection_fd` becomes descriptor 3, `stdout_fd` and
/// `stderr_fd` become 1 and 2 (-1: /dev/null), standard input is /dev/null, every other
/// descriptor is closed, signal mask emptied and every signal's disposition reset to default,
/// in a process group of its own, with `directory` as working directory (NULL: unchanged).
/// Returns 0 with `*pid` set, or an errno value.
int cappex_spawn_extension(const char *path, char *const argv[], char *const envp[],
                           int connection_fd, int stdout_fd, int stderr_fd,
                           const char *directory, pid_t *pid);

/// Reads the WAL-index header at the start of a SQLite `-shm` file mapped at `shm` (the format is
/// documented at sqlite.org/walformat.html: two 48-byte copies of the header, written by every
/// commit). Copies the first into `header` and returns 1 when both copies agree, 0 when a writer
/// is changing them (the caller must then read the database itself). Loads are atomic and
/// ordered as SQLite's own readers order them.
int cappex_wal_index_header(const void *shm, uint64_t header[6]);

#endif
