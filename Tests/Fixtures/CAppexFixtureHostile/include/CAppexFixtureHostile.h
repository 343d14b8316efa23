// The hostile fixture's calls that Swift's Glibc module does not import (variadic or behind
// _GNU_SOURCE). Each returns 0 on success or -1 with errno.
#ifndef CAPPEX_FIXTURE_HOSTILE_H
#define CAPPEX_FIXTURE_HOSTILE_H
#include <sys/types.h>

/// ptrace(PTRACE_ATTACH, pid), detaching again at once if it succeeded.
int hostile_ptrace_attach(pid_t pid);

/// unshare(CLONE_NEWUSER).
int hostile_unshare_user(void);

/// fork(); the child waits for a signal forever (never returns).
pid_t hostile_fork_waiting(void);

/// personality(0xffffffff): asks the execution domain, changes nothing (not on enhanced
/// security's seccomp allowlist).
int hostile_personality_query(void);
/// socket(AF_UNIX) and connect to `name`: a path, or with `abstract` an abstract name.
int hostile_unix_connect(const char *name, int abstract);

/// socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE): the kernel's routing interface.
int hostile_netlink_route(void);

/// socketpair(AF_UNIX, SOCK_STREAM): a pair that reaches nothing outside the process.
int hostile_socket_pair(void);
#endif
