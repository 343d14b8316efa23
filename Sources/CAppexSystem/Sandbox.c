// The sandboxed spawn: a vfork-style child (shared memory, the parent suspended until exec) that
// enters its namespaces, joins its cgroup, sets its limits, drops root's privileges, restricts
// itself with Landlock and seccomp, and execs the executable the parent opened and verified.
// Everything the child does is a system call on data the parent prepared: nothing allocates and
// no lock is taken between clone and exec.
#define _GNU_SOURCE
#include "CAppexSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#ifdef __linux__
#include <linux/close_range.h>
#endif
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <pthread.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/statfs.h>
#include <sys/prctl.h>
#endif

// Landlock's ABI, declared here so an old linux/landlock.h does not limit what a new kernel offers.
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

int cappex_landlock_abi(void) {
#ifdef __linux__
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
#else
    return 0;
#endif
}

int cappex_seccomp_available(void) {
#ifdef __linux__
    return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
#else
    return 0;
#endif
}

#ifdef __linux__
/// The probe's child: maps its user, makes its mounts private and mounts a /proc of its PID
/// namespace, as a sandboxed spawn does; exits 0 when the mount held, 2 when only it failed.
static int probe_child(void *argument) {
    (void)argument;
    int fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) { (void)!write(fd, "deny", 4); close(fd); }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) _exit(1);
    _exit(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0 ? 0 : 2);
}
#endif

int cappex_probe_namespaces(void) {
#ifdef __linux__
    static char stack[64 * 1024] __attribute__((aligned(16)));
    pid_t child = clone(probe_child, stack + sizeof(stack), CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | SIGCHLD, NULL);
    if (child < 0) return 0;
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status)) return 0;
    switch (WEXITSTATUS(status)) {
    case 0: return CAPPEX_PROBE_USER_NAMESPACES | CAPPEX_PROBE_PRIVATE_PROC;
    case 2: return CAPPEX_PROBE_USER_NAMESPACES;
    default: return 0;
    }
#else
    return 0;
#endif
}

int cappex_landlock_ruleset(int abi, uint64_t handled_fs, uint64_t handled_net, uint64_t scoped) {
#ifdef __linux__
    struct ll_ruleset_attr attr = { .handled_access_fs = handled_fs, .handled_access_net = handled_net, .scoped = scoped };
    // The kernel reads as much of the structure as the size says: an older ABI knows fewer fields.
    size_t size = abi >= 6 ? sizeof(attr) : abi >= 4 ? offsetof(struct ll_ruleset_attr, scoped)
                                                     : offsetof(struct ll_ruleset_attr, handled_access_net);
    return (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
#else
    (void)abi; (void)handled_fs; (void)handled_net; (void)scoped;
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_landlock_allow_path(int ruleset, const char *path, uint64_t access) {
#ifdef __linux__
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -1;
    struct ll_path_beneath_attr attr = { .allowed_access = access, .parent_fd = fd };
    int result = (int)syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &attr, 0);
    int saved = errno;
    close(fd);
    errno = saved;
    return result;
#else
    (void)ruleset; (void)path; (void)access;
    errno = ENOSYS;
    return -1;
#endif
}

int cappex_landlock_allow_existing(int ruleset, const char *path, uint64_t file_access, uint64_t directory_access) {
#ifdef __linux__
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat status;
    if (fstat(fd, &status) != 0) {
        close(fd);
        return 0;
    }
    struct ll_path_beneath_attr attr = {
        .allowed_access = S_ISDIR(status.st_mode) ? directory_access : file_access,
        .parent_fd = fd,
    };
    int result = (int)syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &attr, 0);
    int saved = errno;
    close(fd);
    errno = saved;
    return result == 0 ? 1 : -1;
#else
    (void)ruleset; (void)path; (void)file_access; (void)directory_access;
    return 0;
#endif
}

int cappex_landlock_allow_port(int ruleset, uint64_t port, uint64_t access) {
#ifdef __linux__
    struct ll_net_port_attr attr = { .allowed_access = access, .port = port };
    return (int)syscall(SYS_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &attr, 0);
#else
    (void)ruleset; (void)port; (void)access;
    errno = ENOSYS;
    return -1;
#endif
}

#ifdef __linux__

#if defined(__x86_64__)
#define CAPPEX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CAPPEX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define CAPPEX_MAX_FILTER 640

/// The seccomp program, built by the parent before the clone.
struct filter_builder {
    struct sock_filter code[CAPPEX_MAX_FILTER];
    unsigned short length;
    int overflow;
};

static void emit(struct filter_builder *builder, struct sock_filter instruction) {
    if (builder->length >= CAPPEX_MAX_FILTER) { builder->overflow = 1; return; }
    builder->code[builder->length++] = instruction;
}

#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LOAD_ARG_LOW(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[n]))
#define RETURN_ERRNO(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define RETURN_ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static const long denied_calls[] = {
    // Reaching into other processes.
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_kcmp,
    // The file system's shape.
    SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot,
#ifdef SYS_open_tree
    SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick,
#endif
#ifdef SYS_mount_setattr
    SYS_mount_setattr,
#endif
    // The kernel's keyring, BPF, performance counters, kexec, modules.
    SYS_keyctl, SYS_add_key, SYS_request_key, SYS_bpf, SYS_perf_event_open, SYS_kexec_load,
#ifdef SYS_kexec_file_load
    SYS_kexec_file_load,
#endif
    SYS_init_module, SYS_finit_module, SYS_delete_module,
    // New namespaces (unshare, setns; clone's namespace flags are checked below).
    SYS_unshare, SYS_setns,
    // Ways around the filter or known escapes.
    SYS_userfaultfd, SYS_open_by_handle_at,
#ifdef SYS_io_uring_setup
    SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
#endif
    SYS_swapon, SYS_swapoff, SYS_reboot, SYS_acct, SYS_syslog, SYS_quotactl,
#ifdef SYS_iopl
    SYS_iopl, SYS_ioperm,
#endif
};

/// Enhanced security's allowlist: what a program of the Swift runtime (Foundation, Dispatch,
/// SQLite, URLSession) calls, and nothing that reaches past the process, its files and its
/// sockets. Not here, so refused: the deny list above, set*id and setgroups, SysV and POSIX
/// message IPC, clock and host settings, personality, mknod, fanotify, NUMA page moves, and any
/// call newer than this list.
static const long allowed_calls[] = {
    // Files and directories.
    SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64, SYS_preadv, SYS_pwritev,
#ifdef SYS_preadv2
    SYS_preadv2, SYS_pwritev2,
#endif
    SYS_openat, SYS_close, SYS_lseek, SYS_fstat, SYS_newfstatat, SYS_statfs, SYS_fstatfs, SYS_getdents64,
    SYS_readlinkat, SYS_faccessat, SYS_mkdirat, SYS_unlinkat, SYS_linkat, SYS_symlinkat,
    SYS_fchmod, SYS_fchmodat, SYS_fchown, SYS_fchownat, SYS_utimensat, SYS_ftruncate, SYS_truncate,
    SYS_fallocate, SYS_fsync, SYS_fdatasync, SYS_sync_file_range, SYS_flock, SYS_fcntl, SYS_ioctl, SYS_dup,
    SYS_dup3, SYS_pipe2, SYS_getcwd, SYS_chdir, SYS_fchdir, SYS_umask, SYS_sendfile, SYS_splice, SYS_tee,
    SYS_copy_file_range, SYS_fadvise64, SYS_readahead, SYS_getxattr, SYS_lgetxattr, SYS_fgetxattr,
    SYS_listxattr, SYS_llistxattr, SYS_flistxattr, SYS_memfd_create, SYS_inotify_init1,
    SYS_inotify_add_watch, SYS_inotify_rm_watch,
#ifdef SYS_renameat
    SYS_renameat,
#endif
#ifdef SYS_renameat2
    SYS_renameat2,
#endif
    SYS_sync, SYS_syncfs,
#ifdef SYS_statx
    SYS_statx,
#endif
#ifdef SYS_faccessat2
    SYS_faccessat2,
#endif
#ifdef SYS_openat2
    SYS_openat2,
#endif
#ifdef SYS_close_range
    SYS_close_range,
#endif
#ifdef SYS_open
    SYS_open, SYS_stat, SYS_lstat, SYS_access, SYS_readlink, SYS_mkdir, SYS_rmdir, SYS_unlink, SYS_rename,
    SYS_link, SYS_symlink, SYS_chmod, SYS_chown, SYS_lchown, SYS_creat, SYS_dup2, SYS_pipe, SYS_getdents,
    SYS_utimes, SYS_utime, SYS_futimesat, SYS_inotify_init,
#endif
    // Memory.
    SYS_brk, SYS_mmap, SYS_munmap, SYS_mprotect, SYS_mremap, SYS_madvise, SYS_msync, SYS_mincore,
    SYS_mlock, SYS_munlock, SYS_membarrier,
#ifdef SYS_mlock2
    SYS_mlock2,
#endif
    // Threads, processes (clone's namespace flags are refused above), waiting, scheduling.
    SYS_clone, SYS_execve, SYS_execveat, SYS_exit, SYS_exit_group, SYS_wait4, SYS_waitid, SYS_futex,
    SYS_set_robust_list, SYS_get_robust_list, SYS_set_tid_address, SYS_gettid, SYS_getpid, SYS_getppid,
    SYS_getpgid, SYS_setpgid, SYS_getsid, SYS_setsid, SYS_sched_yield, SYS_sched_getaffinity,
    SYS_sched_setaffinity, SYS_sched_getparam, SYS_sched_getscheduler, SYS_sched_get_priority_max,
    SYS_sched_get_priority_min, SYS_getpriority, SYS_setpriority, SYS_prctl, SYS_getrlimit, SYS_setrlimit,
    SYS_prlimit64, SYS_getrusage, SYS_times, SYS_getcpu, SYS_capget, SYS_uname, SYS_sysinfo,
    SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid, SYS_getresuid, SYS_getresgid, SYS_getgroups,
    SYS_get_mempolicy, SYS_restart_syscall, SYS_seccomp, SYS_landlock_create_ruleset, SYS_landlock_add_rule,
    SYS_landlock_restrict_self,
#ifdef SYS_rseq
    SYS_rseq,
#endif
#ifdef SYS_futex_waitv
    SYS_futex_waitv,
#endif
#ifdef SYS_pidfd_open
    SYS_pidfd_open, SYS_pidfd_send_signal,
#endif
#ifdef SYS_arch_prctl
    SYS_arch_prctl,
#endif
#ifdef SYS_fork
    SYS_fork, SYS_vfork, SYS_getpgrp, SYS_alarm, SYS_pause, SYS_time,
#endif
    // Signals (Landlock scopes them to the sandbox), time, timers.
    SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_rt_sigsuspend, SYS_rt_sigpending,
    SYS_rt_sigtimedwait, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo, SYS_sigaltstack, SYS_kill, SYS_tkill,
    SYS_tgkill, SYS_nanosleep, SYS_clock_nanosleep, SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday,
    SYS_getitimer, SYS_setitimer, SYS_timer_create, SYS_timer_settime, SYS_timer_gettime,
    SYS_timer_getoverrun, SYS_timer_delete, SYS_timerfd_create, SYS_timerfd_settime, SYS_timerfd_gettime,
    SYS_signalfd4, SYS_eventfd2, SYS_getrandom,
    // Waiting on descriptors.
    SYS_epoll_create1, SYS_epoll_ctl, SYS_epoll_pwait, SYS_ppoll, SYS_pselect6,
#ifdef SYS_epoll_pwait2
    SYS_epoll_pwait2,
#endif
#ifdef SYS_epoll_wait
    SYS_epoll_wait, SYS_epoll_create, SYS_poll, SYS_select, SYS_eventfd, SYS_signalfd,
#endif
    // Sockets (socket itself is checked above; Landlock rules TCP).
    SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_accept, SYS_accept4, SYS_shutdown,
    SYS_getsockname, SYS_getpeername, SYS_getsockopt, SYS_setsockopt, SYS_sendto, SYS_recvfrom,
    SYS_sendmsg, SYS_recvmsg, SYS_sendmmsg, SYS_recvmmsg,
};

/// What the filter answers a call by its number alone, or the test of its arguments it runs.
enum verdict { VERDICT_ALLOW, VERDICT_EPERM, VERDICT_ENOSYS, VERDICT_CLONE, VERDICT_SOCKET, VERDICT_SOCKETPAIR };

/// Calls numbered from here on get the filter's default verdict (x86-64's and arm64's numbers
/// stay below 500; the x32 ABI's, from 0x40000000, are refused before the search).
#define CAPPEX_CALL_TABLE 1024

/// A run of consecutive call numbers with one verdict, from `first` to the next run's first.
struct verdict_run {
    uint32_t first;
    uint8_t verdict;
};

/// The instructions `runs[lower..<upper]`'s search takes (see emit_search).
static unsigned search_length(unsigned lower, unsigned upper) {
    if (upper - lower == 1) return 1;
    unsigned middle = lower + (upper - lower) / 2;
    unsigned left = search_length(lower, middle);
    return 1 + (left > 255 ? 1 : 0) + left + search_length(middle, upper);
}

/// A binary search over the runs, the call's number in the accumulator: each comparison halves
/// the runs left, and each leaf returns its verdict or jumps to the argument test at `tests[v]`
/// (an absolute index, after the search). The kernel runs log2(runs) comparisons for a call where
/// a chain of tests ran one per listed call, and its action cache, which it fills when the filter
/// is installed by running the filter for every call number, costs as much less.
static void emit_search(struct filter_builder *builder, const struct verdict_run *runs, unsigned lower,
                        unsigned upper, const unsigned tests[]) {
    if (upper - lower == 1) {
        switch (runs[lower].verdict) {
        case VERDICT_ALLOW: emit(builder, (struct sock_filter)RETURN_ALLOW); break;
        case VERDICT_EPERM: emit(builder, (struct sock_filter)RETURN_ERRNO(EPERM)); break;
        case VERDICT_ENOSYS: emit(builder, (struct sock_filter)RETURN_ERRNO(ENOSYS)); break;
        default: {
            unsigned target = tests[runs[lower].verdict];
            emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, target - builder->length - 1, 0, 0));
        }
        }
        return;
    }
    unsigned middle = lower + (upper - lower) / 2;
    unsigned left = search_length(lower, middle);
    if (left <= 255) {
        // nr >= first of the upper half: past the lower half's instructions; else the next one.
        emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, runs[middle].first, (uint8_t)left, 0));
    } else {
        // Too far for a conditional jump's 8 bits: it reaches an unconditional jump instead.
        emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, runs[middle].first, 0, 1));
        emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, left, 0, 0));
    }
    emit_search(builder, runs, lower, middle, tests);
    emit_search(builder, runs, middle, upper, tests);
}

/// The filter: a foreign architecture or ABI, the denied calls and namespace flags fail with
/// EPERM; clone3 with ENOSYS (its flags sit behind a pointer the filter cannot read, and the C
/// library then falls back to clone); a socket of any family but the internet's (Unix, netlink,
/// packet…), an internet socket but a stream or a datagram, and a socket pair of any family but
/// Unix, always; with
/// `flags & CAPPEX_SECCOMP_NO_INET_DATAGRAM`, an internet socket other than a stream (Landlock
/// rules TCP), with `CAPPEX_SECCOMP_NO_INET` any internet socket; with `CAPPEX_SECCOMP_ALLOWLIST`
/// every call not on the allowlist. Every call number gets its verdict in a table (the denied
/// calls win over the argument tests, which win over the allowlist), whose runs of equal verdicts
/// the filter finds by binary search (docs/decisions/0099-the-sandbox.md).
static int build_filter(struct filter_builder *builder, int flags) {
    builder->length = 0;
    builder->overflow = 0;
    uint8_t table[CAPPEX_CALL_TABLE];
    const uint8_t otherwise = (flags & CAPPEX_SECCOMP_ALLOWLIST) ? VERDICT_EPERM : VERDICT_ALLOW;
    memset(table, otherwise, sizeof table);
    if (flags & CAPPEX_SECCOMP_ALLOWLIST) {
        for (size_t index = 0; index < sizeof(allowed_calls) / sizeof(allowed_calls[0]); index++) {
            if (allowed_calls[index] >= 0 && allowed_calls[index] < CAPPEX_CALL_TABLE) table[allowed_calls[index]] = VERDICT_ALLOW;
        }
    }
    table[SYS_clone] = VERDICT_CLONE;
    table[SYS_socket] = VERDICT_SOCKET;
    table[SYS_socketpair] = VERDICT_SOCKETPAIR;
#ifdef SYS_clone3
    table[SYS_clone3] = VERDICT_ENOSYS;
#endif
    for (size_t index = 0; index < sizeof(denied_calls) / sizeof(denied_calls[0]); index++) {
        if (denied_calls[index] >= 0 && denied_calls[index] < CAPPEX_CALL_TABLE) table[denied_calls[index]] = VERDICT_EPERM;
    }
    struct verdict_run runs[CAPPEX_CALL_TABLE + 1];
    unsigned count = 0;
    for (unsigned number = 0; number < CAPPEX_CALL_TABLE; number++) {
        if (count == 0 || runs[count - 1].verdict != table[number]) runs[count++] = (struct verdict_run){ number, table[number] };
    }
    if (runs[count - 1].verdict != otherwise) runs[count++] = (struct verdict_run){ CAPPEX_CALL_TABLE, otherwise };

#ifdef CAPPEX_AUDIT_ARCH
    emit(builder, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CAPPEX_AUDIT_ARCH, 1, 0));
    emit(builder, (struct sock_filter)RETURN_ERRNO(EPERM));
#endif
    emit(builder, (struct sock_filter)LOAD_NR);
#if defined(__x86_64__)
    // The x32 ABI's numbers (bit 30) alias x86-64's calls: refuse them all.
    emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
    emit(builder, (struct sock_filter)RETURN_ERRNO(EPERM));
#endif
    // The argument tests follow the search: where each starts.
    unsigned tests[VERDICT_SOCKETPAIR + 1] = { 0 };
    tests[VERDICT_CLONE] = builder->length + search_length(0, count);
    tests[VERDICT_SOCKET] = tests[VERDICT_CLONE] + 4;
    tests[VERDICT_SOCKETPAIR] = tests[VERDICT_SOCKET] + 12;  // a program past CAPPEX_MAX_FILTER overflows
    emit_search(builder, runs, 0, count, tests);

    // clone with any namespace flag (4 instructions).
    const uint32_t namespaces = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWUTS
                                | CLONE_NEWIPC | CLONE_NEWCGROUP;
    emit(builder, (struct sock_filter)LOAD_ARG_LOW(0));
    emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, namespaces, 0, 1));
    emit(builder, (struct sock_filter)RETURN_ERRNO(EPERM));
    emit(builder, (struct sock_filter)RETURN_ALLOW);
    // socket(domain, type, protocol): an internet stream or datagram as the network allows, never
    // a raw one; every other family refused: Unix sockets (by path they reach an ssh-agent, a D-Bus
    // bus or docker.sock, where Landlock does not look), netlink, packet sockets. The extension
    // keeps the sockets its host gave it. A fixed 12 instructions: the flags choose a refusal or a
    // no-op.
    emit(builder, (struct sock_filter)LOAD_ARG_LOW(0));
    emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0));
    emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 0, 7));  // else: refused
    // An internet socket.
    if (flags & CAPPEX_SECCOMP_NO_INET) {
        emit(builder, (struct sock_filter)RETURN_ERRNO(EPERM));
    } else {
        emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));  // no-op: keeps the offsets
    }
    emit(builder, (struct sock_filter)LOAD_ARG_LOW(1));
    emit(builder, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf));
    emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 4, 0));  // a stream
    emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_DGRAM, 0, 2));   // raw…: refused
    if (flags & CAPPEX_SECCOMP_NO_INET_DATAGRAM) {
        emit(builder, (struct sock_filter)RETURN_ERRNO(EPERM));
    } else {
        emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));  // no-op
    }
    emit(builder, (struct sock_filter)RETURN_ALLOW);  // a datagram
    emit(builder, (struct sock_filter)RETURN_ERRNO(EPERM));  // another family, or a raw or packet type
    emit(builder, (struct sock_filter)RETURN_ALLOW);  // a stream
    // socketpair(domain, …): a Unix pair only, which reaches nothing outside the process (4).
    emit(builder, (struct sock_filter)LOAD_ARG_LOW(0));
    emit(builder, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0));
    emit(builder, (struct sock_filter)RETURN_ERRNO(EPERM));
    emit(builder, (struct sock_filter)RETURN_ALLOW);
    return builder->overflow ? -1 : 0;
}

int cappex_seccomp_program(int flags, struct cappex_bpf_instruction *program, int capacity) {
    static struct filter_builder builder;  // large: not on the stack; callers are tests and tools
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    int length = build_filter(&builder, flags) != 0 || builder.length > capacity ? -1 : builder.length;
    if (length > 0) memcpy(program, builder.code, (size_t)length * sizeof(struct sock_filter));
    pthread_mutex_unlock(&lock);
    return length;
}

uint32_t cappex_seccomp_architecture(void) {
#ifdef CAPPEX_AUDIT_ARCH
    return CAPPEX_AUDIT_ARCH;
#else
    return 0;
#endif
}

#define CHILD_STACK_SIZE (256 * 1024)

/// What the parent hands the child; the child writes `failed_step` and `error` on failure (the
/// memory is shared until exec).
struct child_plan {
    int executable_fd;
    int keep_executable_open;
    char *const *argv;
    char *const *envp;
    const int *inherit;
    int inherit_count;
    int stdout_fd;
    int stderr_fd;
    const char *directory;
    const struct cappex_sandbox *sandbox;
    struct sock_fprog filter;
    volatile int failed_step;
    volatile int error;
};

static int fail(struct child_plan *plan, int step) {
    plan->failed_step = step;
    plan->error = errno;
    _exit(127);
}

/// Writes `text` whole to the file at `path`; 0 or -1 with errno.
static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t length = strlen(text);
    ssize_t written = write(fd, text, length);
    int saved = errno;
    close(fd);
    errno = saved;
    return written == (ssize_t)length ? 0 : -1;
}

/// Formats "N N 1\n" (an identity map of one id) into `out` without printf (not async-signal-safe).
static void identity_map(char *out, uint32_t id) {
    char digits[16];
    int count = 0;
    do { digits[count++] = (char)('0' + id % 10); id /= 10; } while (id > 0 && count < 15);
    int at = 0;
    for (int copy = 0; copy < 2; copy++) {
        for (int index = count - 1; index >= 0; index--) out[at++] = digits[index];
        out[at++] = ' ';
    }
    out[at++] = '1';
    out[at++] = '\n';
    out[at] = 0;
}

/// Writes "/proc/self/fd/N" into `out` (at least 32 bytes) without printf.
static void descriptor_path(char *out, int fd) {
    const char prefix[] = "/proc/self/fd/";
    int at = 0;
    for (; prefix[at] != 0; at++) out[at] = prefix[at];
    char digits[12];
    int count = 0;
    unsigned value = (unsigned)fd;
    do { digits[count++] = (char)('0' + value % 10); value /= 10; } while (value > 0 && count < 11);
    while (count > 0) out[at++] = digits[--count];
    out[at] = 0;
}

/// Makes `path` inside the fresh /tmp, its parents as directories and itself as a directory or
/// an empty file (a mount point for what `source` names); 0 or -1 with errno.
static int make_mount_point(const char *path, int directory) {
    char buffer[4096];
    size_t length = strlen(path);
    if (length >= sizeof(buffer)) { errno = ENAMETOOLONG; return -1; }
    memcpy(buffer, path, length + 1);
    for (size_t index = 1; index < length; index++) {
        if (buffer[index] != '/') continue;
        buffer[index] = 0;
        if (mkdir(buffer, 0755) != 0 && errno != EEXIST) return -1;
        buffer[index] = '/';
    }
    if (directory) return mkdir(buffer, 0755) != 0 && errno != EEXIST ? -1 : 0;
    int fd = open(buffer, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

/// The private /tmp: a fresh tmpfs, with the paths under /tmp the process needs (its bundle,
/// container, groups, when the user keeps them there) bound back in at the same paths, those it
/// may only read read-only. They are opened before the tmpfs hides them.
static int mount_private_tmp(const struct cappex_sandbox *sandbox) {
    int kept[16];
    int count = sandbox->tmp_keep_count > 16 ? 16 : sandbox->tmp_keep_count;
    for (int index = 0; index < count; index++) {
        kept[index] = open(sandbox->tmp_keep[index], O_PATH | O_CLOEXEC);
    }
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=64m") != 0) return -1;
    for (int index = 0; index < count; index++) {
        if (kept[index] < 0) continue;  // absent: nothing to keep
        struct stat status;
        if (fstat(kept[index], &status) != 0) return -1;
        const char *path = sandbox->tmp_keep[index];
        if (make_mount_point(path, S_ISDIR(status.st_mode)) != 0) return -1;
        char source[32];
        descriptor_path(source, kept[index]);
        if (mount(source, path, NULL, MS_BIND | MS_REC, NULL) != 0) return -1;
        if (sandbox->tmp_keep_read_only[index]) {
            // A remount must keep the flags the kernel locked on the source mount.
            struct statfs filesystem;
            if (statfs(path, &filesystem) != 0) return -1;
            unsigned long kept_flags = (unsigned long)filesystem.f_flags
                                       & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME);
            if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | kept_flags, NULL) != 0) return -1;
        }
        close(kept[index]);
    }
    return 0;
}

static int child_main(void *argument) {
    struct child_plan *plan = argument;
    const struct cappex_sandbox *sandbox = plan->sandbox;
    // Every handler back to its default before any signal may arrive, then unblock: a handler of
    // the parent's must never run on this shared memory.
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; signal++) (void)sigaction(signal, &action, NULL);
    sigset_t empty;
    sigemptyset(&empty);
    if (sigprocmask(SIG_SETMASK, &empty, NULL) != 0) return fail(plan, CAPPEX_STEP_SIGNALS);
    if (setpgid(0, 0) != 0) return fail(plan, CAPPEX_STEP_PROCESS_GROUP);
    for (int index = 0; sandbox != NULL && index < 2; index++) {
        if (sandbox->cgroup_procs[index] >= 0 && write(sandbox->cgroup_procs[index], "0", 1) != 1) {
            return fail(plan, CAPPEX_STEP_CGROUP);
        }
    }

    if (sandbox != NULL && (sandbox->namespaces & CAPPEX_NAMESPACE_USER)) {
        char map[48];
        if (write_file("/proc/self/setgroups", "deny") != 0) return fail(plan, CAPPEX_STEP_USER_NAMESPACE);
        identity_map(map, sandbox->outer_uid);
        if (write_file("/proc/self/uid_map", map) != 0) return fail(plan, CAPPEX_STEP_USER_NAMESPACE);
        identity_map(map, sandbox->outer_gid);
        if (write_file("/proc/self/gid_map", map) != 0) return fail(plan, CAPPEX_STEP_USER_NAMESPACE);
    }
    if (sandbox != NULL && (sandbox->namespaces & CAPPEX_NAMESPACE_MOUNT)) {
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return fail(plan, CAPPEX_STEP_MOUNT);
        if (sandbox->private_tmp) {
            if (mount_private_tmp(sandbox) != 0) return fail(plan, CAPPEX_STEP_PRIVATE_TMP);
            // The new mount's root is an inode no rule of the parent's names: allow it here.
            if (sandbox->landlock_ruleset >= 0
                && cappex_landlock_allow_path(sandbox->landlock_ruleset, "/tmp", sandbox->tmp_access) != 0) {
                return fail(plan, CAPPEX_STEP_PRIVATE_TMP);
            }
        }
        // A /proc that shows only the new PID namespace's processes. The kernel refuses it where
        // the outer /proc is partly hidden (a container's masked paths): the outer one then stays,
        // and Landlock still keeps other processes' files out of reach.
        if (sandbox->private_proc && (sandbox->namespaces & CAPPEX_NAMESPACE_PID)
            && mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0
            && sandbox->landlock_ruleset >= 0
            && cappex_landlock_allow_path(sandbox->landlock_ruleset, "/proc", sandbox->proc_access) != 0) {
            return fail(plan, CAPPEX_STEP_MOUNT);
        }
    }
    if (plan->directory != NULL && chdir(plan->directory) != 0) return fail(plan, CAPPEX_STEP_DIRECTORY);

    // Descriptors: everything the child keeps moves above the contract's numbers first, so no
    // dup2 overwrites a source another still needs; then 0, 1, 2, 3… as the contract says.
    const int base = 64;
    int moved[8];
    int count = plan->inherit_count > 8 ? 8 : plan->inherit_count;
    for (int index = 0; index < count; index++) {
        moved[index] = fcntl(plan->inherit[index], F_DUPFD_CLOEXEC, base);
        if (moved[index] < 0) return fail(plan, CAPPEX_STEP_DESCRIPTORS);
    }
    int out = plan->stdout_fd >= 0 ? fcntl(plan->stdout_fd, F_DUPFD_CLOEXEC, base) : -1;
    int err = plan->stderr_fd >= 0 ? fcntl(plan->stderr_fd, F_DUPFD_CLOEXEC, base) : -1;
    int executable = fcntl(plan->executable_fd, F_DUPFD_CLOEXEC, base);
    int ruleset = sandbox != NULL && sandbox->landlock_ruleset >= 0
                      ? fcntl(sandbox->landlock_ruleset, F_DUPFD_CLOEXEC, base) : -1;
    if (executable < 0 || (plan->stdout_fd >= 0 && out < 0) || (plan->stderr_fd >= 0 && err < 0)
        || (sandbox != NULL && sandbox->landlock_ruleset >= 0 && ruleset < 0)) {
        return fail(plan, CAPPEX_STEP_DESCRIPTORS);
    }
    int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int null_out = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_in < 0 || null_out < 0) return fail(plan, CAPPEX_STEP_DESCRIPTORS);
    if (dup2(null_in, 0) < 0 || dup2(out >= 0 ? out : null_out, 1) < 0 || dup2(err >= 0 ? err : null_out, 2) < 0) {
        return fail(plan, CAPPEX_STEP_DESCRIPTORS);
    }
    for (int index = 0; index < count; index++) {
        if (dup2(moved[index], 3 + index) < 0) return fail(plan, CAPPEX_STEP_DESCRIPTORS);
    }
    // A script's interpreter opens it again as /dev/fd/N: then the descriptor stays open over exec.
    int first_closed = 3 + count;
    if (plan->keep_executable_open) {
        if (dup2(executable, first_closed) < 0) return fail(plan, CAPPEX_STEP_DESCRIPTORS);
        executable = first_closed++;
    }
    // Everything else closes at exec (the ruleset and the executable are still needed until then;
    // all of ours above `base` are close-on-exec already, this catches what the parent leaked).
#if defined(SYS_close_range) && defined(CLOSE_RANGE_CLOEXEC)
    if (syscall(SYS_close_range, (unsigned)first_closed, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
#endif
    {
        for (int fd = first_closed; fd < base; fd++) (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    // Limits last among the preparations: a low RLIMIT_NOFILE must not fail the moves above.
    if (sandbox != NULL) {
        for (int index = 0; index < sandbox->limit_count && index < 4; index++) {
            struct rlimit limit = { .rlim_cur = sandbox->limit_value[index], .rlim_max = sandbox->limit_value[index] };
            int resource;
            switch (sandbox->limit_resource[index]) {
            case 0: resource = RLIMIT_AS; break;
            case 1: resource = RLIMIT_NOFILE; break;
            case 2: resource = RLIMIT_CPU; break;
            default: resource = RLIMIT_NPROC; break;
            }
            if (setrlimit(resource, &limit) != 0) return fail(plan, CAPPEX_STEP_LIMITS);
        }
    }
    if (sandbox != NULL && sandbox->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        return fail(plan, CAPPEX_STEP_NO_NEW_PRIVS);
    }
    if (sandbox != NULL && sandbox->drop_root) {
        // Root keeps no capability over exec (SECBIT_NOROOT, locked), nor through a set-uid
        // fix-up: the sandbox's rules then hold for root as for anyone.
        const unsigned long bits = (1UL << 0) | (1UL << 1) | (1UL << 2) | (1UL << 3);  // NOROOT(+LOCKED), NO_SETUID_FIXUP(+LOCKED)
        if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0) return fail(plan, CAPPEX_STEP_DROP_ROOT);
    }
    if (ruleset >= 0) {
        if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) return fail(plan, CAPPEX_STEP_LANDLOCK);
        close(ruleset);
    }
    if (plan->filter.len > 0
        && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &plan->filter) != 0) {
        return fail(plan, CAPPEX_STEP_SECCOMP);
    }
    syscall(SYS_execveat, executable, "", plan->argv, plan->envp, AT_EMPTY_PATH);
    return fail(plan, CAPPEX_STEP_EXEC);
}

#endif  // __linux__

#ifndef __linux__
int cappex_seccomp_program(int flags, struct cappex_bpf_instruction *program, int capacity) {
    (void)flags; (void)program; (void)capacity;
    return -1;
}

uint32_t cappex_seccomp_architecture(void) { return 0; }
#endif

int cappex_spawn_sandboxed(int executable_fd, int keep_executable_open, char *const argv[], char *const envp[],
                           const int *inherit, int inherit_count, int stdout_fd, int stderr_fd,
                           const char *directory, const struct cappex_sandbox *sandbox,
                           pid_t *pid, int *failed_step) {
#ifdef __linux__
    *failed_step = 0;
    if (inherit_count < 0 || inherit_count > 8) return EINVAL;
    struct filter_builder *builder = NULL;
    struct child_plan plan;
    memset(&plan, 0, sizeof(plan));
    plan.executable_fd = executable_fd;
    plan.keep_executable_open = keep_executable_open;
    plan.argv = argv;
    plan.envp = envp;
    plan.inherit = inherit;
    plan.inherit_count = inherit_count;
    plan.stdout_fd = stdout_fd;
    plan.stderr_fd = stderr_fd;
    plan.directory = directory;
    plan.sandbox = sandbox;
    void *stack = mmap(NULL, CHILD_STACK_SIZE + sizeof(struct filter_builder), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return errno;
    if (sandbox != NULL && sandbox->seccomp) {
        builder = (struct filter_builder *)((char *)stack + CHILD_STACK_SIZE);
        if (build_filter(builder, sandbox->seccomp) != 0) {
            munmap(stack, CHILD_STACK_SIZE + sizeof(struct filter_builder));
            *failed_step = CAPPEX_STEP_SECCOMP;
            return E2BIG;
        }
        plan.filter.len = builder->length;
        plan.filter.filter = builder->code;
    }
    int flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
    if (sandbox != NULL) {
        if (sandbox->namespaces & CAPPEX_NAMESPACE_USER) flags |= CLONE_NEWUSER;
        if (sandbox->namespaces & CAPPEX_NAMESPACE_MOUNT) flags |= CLONE_NEWNS;
        if (sandbox->namespaces & CAPPEX_NAMESPACE_PID) flags |= CLONE_NEWPID;
    }
    // No handler of ours may run in the child before it resets them: block everything across
    // the clone (the child unblocks after resetting; the parent restores its mask after).
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    pid_t child = clone(child_main, (char *)stack + CHILD_STACK_SIZE, flags, &plan);
    int clone_error = errno;
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    munmap(stack, CHILD_STACK_SIZE + sizeof(struct filter_builder));
    if (child < 0) {
        *failed_step = CAPPEX_STEP_CLONE;
        return clone_error;
    }
    if (plan.failed_step != 0) {
        // The child failed before exec and has exited (status 127): reap it and report why.
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        *failed_step = plan.failed_step;
        return plan.error != 0 ? plan.error : ECHILD;
    }
    *pid = child;
    return 0;
#else
    (void)executable_fd; (void)keep_executable_open; (void)argv; (void)envp; (void)inherit; (void)inherit_count;
    (void)stdout_fd; (void)stderr_fd; (void)directory; (void)sandbox; (void)pid;
    *failed_step = 0;
    return ENOSYS;
#endif
}
