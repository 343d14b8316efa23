// Linux facilities Swift's Glibc module does not import (they sit behind _GNU_SOURCE or are
// macros): descriptor passing, peer credentials, memfd, parent-death signal, pidfd, epoll and
// inotify, and the sandboxed spawn (Sandbox.c). Only AppexSystem calls these.
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

/// Names the calling thread (its first 15 bytes), as `ps -L` and /proc/self/task/N/comm show it.
void cappex_name_thread(const char *name);

/// The calling thread's id (gettid, which Glibc's Swift module does not export).
pid_t cappex_thread_id(void);

/// sendmsg of `length` bytes with up to `fd_count` descriptors (SCM_RIGHTS); MSG_NOSIGNAL.
/// Returns the bytes sent or -1 with errno.
ssize_t cappex_send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int fd_count);

/// As cappex_send_with_fds, without blocking (MSG_DONTWAIT): -1 with EAGAIN when the socket's
/// buffer is full.
ssize_t cappex_try_send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int fd_count);

/// recvmsg into `buffer`, receiving up to `fd_capacity` descriptors (close-on-exec) into `fds`;
/// `*fd_count` is set to how many arrived, `*truncated` to 1 when descriptors were cut off.
/// Returns the bytes read (0 at end of stream) or -1 with errno; with `dont_wait`, -1 with EAGAIN
/// when nothing waits (MSG_DONTWAIT).
ssize_t cappex_receive_with_fds(int socket, void *buffer, size_t capacity, int *fds, int fd_capacity, int *fd_count, int *truncated, int dont_wait);

/// The bytes waiting to be read on `socket` (ioctl FIONREAD), or -1 with errno.
int cappex_bytes_available(int socket);

/// The file system type (`f_type` of fstatfs, such as 0xEF53 for ext2/3/4) of the file open
/// as `descriptor`, or -1 with errno (and where fstatfs does not exist).
long long cappex_file_system_type(int descriptor);

/// Copies up to `capacity` waiting bytes of `socket` into `buffer` without consuming them or
/// waiting (recv with MSG_PEEK | MSG_DONTWAIT): the count, 0 at end of stream, or -1 with errno
/// (EAGAIN when nothing waits).
ssize_t cappex_peek(int socket, void *buffer, size_t capacity);

/// recvmsg of one packet (SOCK_SEQPACKET) into `buffer`, with its sender's kernel-attested
/// credentials when SO_PASSCRED is on (`*attested` 1); `*truncated` 1 when the packet was larger
/// than `capacity` (its rest is lost). Descriptors that arrive are closed. Returns the packet's
/// length (0 at the end) or -1 with errno (EAGAIN with `dont_wait` when none is waiting).
ssize_t cappex_receive_packet(int socket, void *buffer, size_t capacity, int dont_wait,
                              pid_t *pid, uid_t *uid, gid_t *gid, int *attested, int *truncated);

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

/// pidfd_getfd(pidfd, target, 0): a copy of another process's descriptor (needs ptrace access to
/// it); the new descriptor or -1 with errno.
int cappex_pidfd_getfd(int pidfd, int target);

/// pipe2(fds, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0)); 0 or -1 with errno.
int cappex_pipe_cloexec(int fds[2], int nonblocking);


/// Reads the WAL-index header at the start of a SQLite `-shm` file mapped at `shm` (the format is
/// documented at sqlite.org/walformat.html: two 48-byte copies of the header, written by every
/// commit). Copies the first into `header` and returns 1 when both copies agree, 0 when a writer
/// is changing them (the caller must then read the database itself). Loads are atomic and
/// ordered as SQLite's own readers order them.
int cappex_wal_index_header(const void *shm, uint64_t header[6]);

// MARK: - The sandbox (Sandbox.c)

/// Landlock's ABI version the kernel offers; 0 when it has none (or it is disabled).
int cappex_landlock_abi(void);

/// Whether this kernel has seccomp (PR_GET_SECCOMP answers).
int cappex_seccomp_available(void);

/// What a throwaway child found it could do (CAPPEX_PROBE_*): make user, mount and PID
/// namespaces, and mount a /proc of its own PID namespace there (the kernel refuses that where
/// the outer /proc is partly masked, as in a container). 0 where neither works.
int cappex_probe_namespaces(void);
#define CAPPEX_PROBE_USER_NAMESPACES 1
#define CAPPEX_PROBE_PRIVATE_PROC 2

/// A Landlock ruleset handling `handled_fs` and `handled_net` rights and the `scoped` scopes, as
/// far as `abi` knows them; the descriptor or -1 with errno.
int cappex_landlock_ruleset(int abi, uint64_t handled_fs, uint64_t handled_net, uint64_t scoped);

/// Allows `access` beneath `path` (a directory, or a file for file rights); 0 or -1 with errno.
int cappex_landlock_allow_path(int ruleset, const char *path, uint64_t access);
/// As cappex_landlock_allow_path, for a path that may be absent: one lookup (opened O_PATH, then
/// fstat), `directory_access` for a directory, `file_access` for anything else. Returns 1 when
/// the rule was added, 0 when the path cannot be opened (absent: nothing to allow), -1 with
/// errno when the rule could not be added.
int cappex_landlock_allow_existing(int ruleset, const char *path, uint64_t file_access, uint64_t directory_access);

/// Allows `access` (bind or connect) to TCP `port`; 0 or -1 with errno.
int cappex_landlock_allow_port(int ruleset, uint64_t port, uint64_t access);

/// Seccomp filter flags (0: no filter).
#define CAPPEX_SECCOMP_BASE 1             /* the denied calls, namespace flags, sockets but internet ones and Unix pairs */
#define CAPPEX_SECCOMP_NO_INET_DATAGRAM 2 /* internet sockets other than streams (Landlock rules TCP) */
#define CAPPEX_SECCOMP_NO_INET 4          /* every internet socket */
#define CAPPEX_SECCOMP_ALLOWLIST 8        /* enhanced: only the calls on the allowlist; any other EPERM */

/// One instruction of a classic BPF program (the layout of linux/filter.h's sock_filter).
struct cappex_bpf_instruction {
    uint16_t code;
    uint8_t jt;
    uint8_t jf;
    uint32_t k;
};

/// The seccomp program a child with `flags` (CAPPEX_SECCOMP_*) installs, written to `program`
/// (room for `capacity` instructions): its length, or -1 when it does not fit.
int cappex_seccomp_program(int flags, struct cappex_bpf_instruction *program, int capacity);

/// The audit architecture the program expects in seccomp_data.arch (0 where it checks none).
uint32_t cappex_seccomp_architecture(void);

/// Namespaces the child is created in.
#define CAPPEX_NAMESPACE_USER 1
#define CAPPEX_NAMESPACE_MOUNT 2
#define CAPPEX_NAMESPACE_PID 4

/// The step of a sandboxed spawn that failed (`failed_step`).
#define CAPPEX_STEP_CLONE 1
#define CAPPEX_STEP_SIGNALS 2
#define CAPPEX_STEP_PROCESS_GROUP 3
#define CAPPEX_STEP_USER_NAMESPACE 4
#define CAPPEX_STEP_MOUNT 5
#define CAPPEX_STEP_PRIVATE_TMP 6
#define CAPPEX_STEP_CGROUP 7
#define CAPPEX_STEP_LIMITS 8
#define CAPPEX_STEP_DIRECTORY 9
#define CAPPEX_STEP_DESCRIPTORS 10
#define CAPPEX_STEP_NO_NEW_PRIVS 11
#define CAPPEX_STEP_DROP_ROOT 12
#define CAPPEX_STEP_LANDLOCK 13
#define CAPPEX_STEP_SECCOMP 14
#define CAPPEX_STEP_EXEC 15

/// What the child does to itself between clone and exec.
struct cappex_sandbox {
    int landlock_ruleset;       /* -1: none; the parent built it; the child restricts itself with it */
    int seccomp;                /* CAPPEX_SECCOMP_* flags; 0: no filter */
    int no_new_privs;
    int drop_root;              /* root keeps no capability over exec (SECBIT_NOROOT, locked) */
    int cgroup_procs[2];        /* -1: none; else a cgroup's cgroup.procs, opened for writing (v1: one per hierarchy) */
    int limit_count;
    int limit_resource[4];      /* as cappex_set_limit: 0 address space, 1 open files, 2 CPU seconds, 3 processes */
    uint64_t limit_value[4];
    int namespaces;             /* CAPPEX_NAMESPACE_* */
    int private_tmp;            /* a tmpfs on /tmp (needs the mount namespace) */
    int private_proc;           /* a /proc of the new PID namespace, where the kernel allows it */
    uint64_t tmp_access;        /* the Landlock rights on the private /tmp */
    uint64_t proc_access;       /* the Landlock rights on the private /proc */
    const char *const *tmp_keep;   /* paths under /tmp the process needs: bound into the private /tmp */
    const int *tmp_keep_read_only; /* per path: bound read-only */
    int tmp_keep_count;            /* at most 16 */
    uint32_t outer_uid;
    uint32_t outer_gid;
};

/// Spawns the executable open at `executable_fd` (execveat, AT_EMPTY_PATH: the file the caller
/// verified, whatever its path names now), in a process group of its own, every signal at its
/// default and none blocked: `inherit[i]` becomes descriptor 3 + i, `stdout_fd` and `stderr_fd`
/// 1 and 2 (-1: /dev/null), standard input /dev/null, every other descriptor closed (but the
/// executable's, after the inherited ones, when `keep_executable_open`: a script's interpreter
/// reads it as /dev/fd/N). `sandbox` (NULL: none) is applied in the order namespaces, cgroup,
/// limits, directory, descriptors, no_new_privs, root's capabilities, Landlock, seccomp.
/// Returns 0 with `*pid` set, or an errno value with `*failed_step` (CAPPEX_STEP_*) saying where.
int cappex_spawn_sandboxed(int executable_fd, int keep_executable_open, char *const argv[], char *const envp[],
                           const int *inherit, int inherit_count, int stdout_fd, int stderr_fd,
                           const char *directory, const struct cappex_sandbox *sandbox,
                           pid_t *pid, int *failed_step);

// Counters in a shared mapping (AppexSystem's CounterFile): one process writes, any reads.
/// Adds `value` to the 64-bit counter at `counter` (relaxed: a count, not a signal).
static inline void cappex_counter_add(uint64_t *counter, uint64_t value) {
    __atomic_fetch_add(counter, value, __ATOMIC_RELAXED);
}
/// Sets the counter at `counter` to `value` (a gauge).
static inline void cappex_counter_store(uint64_t *counter, uint64_t value) {
    __atomic_store_n(counter, value, __ATOMIC_RELAXED);
}
/// Raises the counter at `counter` to `value` when it is lower (a maximum).
static inline void cappex_counter_raise(uint64_t *counter, uint64_t value) {
    uint64_t current = __atomic_load_n(counter, __ATOMIC_RELAXED);
    while (current < value
           && !__atomic_compare_exchange_n(counter, &current, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}
/// Sets the counter at `counter` to `replacement` if it is `expected` (a gauge cleared only by
/// the one who set it).
static inline void cappex_counter_replace(uint64_t *counter, uint64_t expected, uint64_t replacement) {
    __atomic_compare_exchange_n(counter, &expected, replacement, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
/// Stores `value` at `word` after every write before it (a file's header, published last).
static inline void cappex_word64_publish(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}
/// The word at `word`, and every write published before it.
static inline uint64_t cappex_word64_acquire(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}
/// The counter at `counter` now.
static inline uint64_t cappex_counter_load(const uint64_t *counter) {
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}
/// Stores `value` at `word` after every write before it (a slot's publication).
static inline void cappex_word_publish(uint32_t *word, uint32_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}
/// The word at `word`, and every write published before it.
static inline uint32_t cappex_word_acquire(const uint32_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

#ifdef __linux__
// libdispatch's hooks for a loop that serves the main queue on the main thread, as
// CoreFoundation's run loop does (exported by libdispatch, declared in its private headers):
// the eventfd that turns readable when the main queue has work, and one drain of the queue.
// AppexSystem's MainThreadLoop uses them instead of dispatch_main, which ends the main thread
// with pthread_exit.
int _dispatch_get_main_queue_handle_4CF(void);
void _dispatch_main_queue_callback_4CF(void *message);
#endif

#endif
