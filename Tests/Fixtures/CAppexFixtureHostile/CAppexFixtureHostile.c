#define _GNU_SOURCE
#include "CAppexFixtureHostile.h"
#include <sched.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
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
