#define _GNU_SOURCE
#include "CPingPong.h"
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/// The environment a bare child gets: this process's, without LD_PRELOAD. Under Scripts/bench.sh
/// the benchmark harness preloads its Swift malloc interposer, which a spawned C child would load
/// too (+5 MB resident, +1 ms a spawn); an extension's environment is made by its host and does
/// not carry it either.
static char **bare_environment(void) {
    static char **cleaned;
    if (cleaned) return cleaned;
    size_t count = 0;
    while (environ[count]) count++;
    char **list = calloc(count + 1, sizeof(char *));
    if (!list) return environ;
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0) list[kept++] = environ[i];
    }
    cleaned = list;
    return cleaned;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int full_read(int fd, char *buffer, size_t size) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = read(fd, buffer + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        done += (size_t)n;
    }
    return 0;
}

static int full_write(int fd, const char *buffer, size_t size) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, buffer + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        done += (size_t)n;
    }
    return 0;
}

/// Waits as Appex's IPCExecutor does when it expects input: checks `socket` without blocking
/// (poll, timeout 0) for up to `spin_ns`, letting the core's other threads run every 5 µs
/// (sched_yield); the caller's read then blocks if nothing came.
static void spin_for_input(int socket, uint64_t spin_ns) {
    if (spin_ns == 0) return;
    uint64_t start = now_ns(), deadline = start + spin_ns, next_yield = start + 5000;
    struct pollfd ready = { .fd = socket, .events = POLLIN };
    for (;;) {
        if (poll(&ready, 1, 0) > 0) return;
        uint64_t now = now_ns();
        if (now >= deadline) return;
        if (now >= next_yield) {
            sched_yield();
            next_yield = now + 5000;
        }
    }
}

int cpingpong_start(size_t echo_size, uint64_t spin_ns, int *pid) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return -1;
    pid_t child = fork();
    if (child < 0) { close(fds[0]); close(fds[1]); return -1; }
    if (child == 0) {
        close(fds[0]);
        size_t capacity = echo_size > 8 ? echo_size : 8;
        char *buffer = malloc(capacity);
        for (;;) {
            spin_for_input(fds[1], spin_ns);
            if (full_read(fds[1], buffer, echo_size > 8 ? echo_size : 8) != 0) _exit(0);
            uint64_t reply = 0;
            memcpy(&reply, buffer, 8);
            if (reply == 0) {
                if (full_write(fds[1], buffer, echo_size) != 0) _exit(0);
            } else {
                if (reply > capacity) { buffer = realloc(buffer, reply); capacity = reply; }
                if (full_write(fds[1], buffer, reply) != 0) _exit(0);
            }
        }
    }
    close(fds[1]);
    *pid = child;
    return fds[0];
}

int cpingpong_start_frame_echo(size_t payload_size, uint64_t spin_ns, int *pid) {
    enum { header_size = 16 };
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return -1;
    pid_t child = fork();
    if (child < 0) { close(fds[0]); close(fds[1]); return -1; }
    if (child == 0) {
        close(fds[0]);
        size_t size = header_size + payload_size;
        char *frame = malloc(size);
        for (;;) {
            spin_for_input(fds[1], spin_ns);
            if (full_read(fds[1], frame, size) != 0) _exit(0);
            frame[4] = 3;  // the kind byte: a reply to the same request identifier
            if (full_write(fds[1], frame, size) != 0) _exit(0);
        }
    }
    close(fds[1]);
    *pid = child;
    return fds[0];
}

int cpingpong_roundtrip_spinning(int socket, size_t request_size, size_t reply_size, uint64_t spin_ns) {
    static __thread char *buffer = NULL;
    static __thread size_t capacity = 0;
    size_t need = request_size > reply_size ? request_size : reply_size;
    if (need < 8) need = 8;
    if (need > capacity) { buffer = realloc(buffer, need); capacity = need; memset(buffer, 0, need); }
    uint64_t reply = request_size == reply_size ? 0 : reply_size;
    memcpy(buffer, &reply, 8);
    if (full_write(socket, buffer, request_size < 8 ? 8 : request_size) != 0) return -1;
    spin_for_input(socket, spin_ns);
    return full_read(socket, buffer, reply_size);
}

int cpingpong_roundtrip(int socket, size_t request_size, size_t reply_size) {
    return cpingpong_roundtrip_spinning(socket, request_size, reply_size, 0);
}

uint64_t cpingpong_cpu_ns(int pid) {
    clockid_t clock = CLOCK_PROCESS_CPUTIME_ID;
    if (pid != 0 && clock_getcpuclockid(pid, &clock) != 0) return 0;
    struct timespec t;
    if (clock_gettime(clock, &t) != 0) return 0;
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int cpingpong_place(int pid, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu >= 0) {
        CPU_SET(cpu, &set);
    } else {
        long count = sysconf(_SC_NPROCESSORS_CONF);
        for (long i = 0; i < count && i < CPU_SETSIZE; i++) CPU_SET(i, &set);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid == 0 ? (int)getpid() : pid);
    DIR *tasks = opendir(path);
    if (tasks == NULL) return 0;
    int changed = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        int tid = atoi(entry->d_name);
        if (tid > 0 && sched_setaffinity(tid, sizeof set, &set) == 0) changed++;
    }
    closedir(tasks);
    return changed;
}

void cpingpong_stop(int socket, int pid) {
    close(socket);
    waitpid(pid, NULL, 0);
}

int cpingpong_spawn_first_byte(const char *path, uint64_t *nanoseconds) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 3);
    char *argv[] = { (char *)path, NULL };
    pid_t pid;
    uint64_t start = now_ns();
    int spawned = posix_spawn(&pid, path, &actions, NULL, argv, bare_environment());
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) { close(fds[0]); return -1; }
    char byte;
    ssize_t n;
    do { n = read(fds[0], &byte, 1); } while (n < 0 && errno == EINTR);
    *nanoseconds = now_ns() - start;
    close(fds[0]);
    waitpid(pid, NULL, 0);
    return n == 1 ? 0 : -1;
}

int cpingpong_spawn_holding(const char *path, int *pid) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 3);
    char *argv[] = { (char *)path, NULL };
    int spawned = posix_spawn(pid, path, &actions, NULL, argv, bare_environment());
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) { close(fds[0]); return -1; }
    return fds[0];
}

int cpingpong_echo_byte(int socket) {
    char byte = 1;
    return full_write(socket, &byte, 1) == 0 && full_read(socket, &byte, 1) == 0 ? 0 : -1;
}

struct pair_run {
    int socket;
    size_t size;
    uint64_t spin_ns;
    uint64_t deadline;
    pthread_barrier_t *start;
    long long calls;
    int failed;
};

static void *pair_loop(void *argument) {
    struct pair_run *run = argument;
    pthread_barrier_wait(run->start);
    while (now_ns() < run->deadline) {
        if (cpingpong_roundtrip_spinning(run->socket, run->size, run->size, run->spin_ns) != 0) {
            run->failed = 1;
            break;
        }
        run->calls++;
    }
    return NULL;
}

long long cpingpong_concurrent(int pairs, size_t size, uint64_t spin_ns, uint64_t duration_ns) {
    if (pairs <= 0 || pairs > 64) return -1;
    struct pair_run runs[64];
    int pids[64];
    pthread_t threads[64];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)pairs + 1);
    for (int i = 0; i < pairs; i++) {
        runs[i] = (struct pair_run){ .socket = cpingpong_start(size, spin_ns, &pids[i]), .size = size, .spin_ns = spin_ns,
                                     .start = &start };
    }
    for (int i = 0; i < pairs; i++) pthread_create(&threads[i], NULL, pair_loop, &runs[i]);
    uint64_t deadline = now_ns() + duration_ns;
    for (int i = 0; i < pairs; i++) runs[i].deadline = deadline;
    pthread_barrier_wait(&start);
    long long total = 0;
    int failed = 0;
    for (int i = 0; i < pairs; i++) {
        pthread_join(threads[i], NULL);
        total += runs[i].calls;
        failed |= runs[i].failed | (runs[i].socket < 0);
    }
    // Each child holds the sockets of the pairs forked before it: the last forked ends first.
    for (int i = pairs - 1; i >= 0; i--) {
        if (runs[i].socket >= 0) cpingpong_stop(runs[i].socket, pids[i]);
    }
    pthread_barrier_destroy(&start);
    return failed ? -1 : total;
}
