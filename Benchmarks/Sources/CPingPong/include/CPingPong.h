#ifndef CPINGPONG_H
#define CPINGPONG_H
#include <stddef.h>
#include <stdint.h>

/// The baseline peer for IPC: a forked child on a socketpair with read/write. It answers each
/// 8-byte request (a little-endian reply size; 0 means "echo `echo_size` bytes") with that many
/// bytes, and waits for the next request as an extension's IPCExecutor does after one: for up to
/// `spin_ns` without sleeping (as cpingpong_roundtrip_spinning), then blocking in read; 0 blocks
/// at once. Returns the parent's socket, or -1; `*pid` is the child.
int cpingpong_start(size_t echo_size, uint64_t spin_ns, int *pid);

/// A C peer that speaks Appex's frames (docs/protocol.md): a forked child on a socketpair that
/// answers each request of `payload_size` bytes (a 16-byte header, then the payload) with a
/// reply of the same bytes, waiting for the next as cpingpong_start's child does. Returns the
/// parent's socket (close-on-exec), or -1; `*pid` is the child.
int cpingpong_start_frame_echo(size_t payload_size, uint64_t spin_ns, int *pid);

/// One round trip: sends `request_size` bytes (the first 8 the reply size, 0 for an echo of
/// the same size) and reads `reply_size` bytes back. Returns 0 or -1.
int cpingpong_roundtrip(int socket, size_t request_size, size_t reply_size);

/// The same round trip, waiting for the reply as Appex's IPCExecutor does: checking the socket
/// without blocking (poll, timeout 0) for up to `spin_ns` nanoseconds, yielding the core every
/// 5 µs, then blocking in read. Returns 0 or -1.
int cpingpong_roundtrip_spinning(int socket, size_t request_size, size_t reply_size, uint64_t spin_ns);

/// The CPU time (user and system, every thread) that process `pid` has used, in nanoseconds;
/// `pid` 0 is this process. Returns 0 when it cannot be read.
uint64_t cpingpong_cpu_ns(int pid);

/// Sets the CPU affinity of every thread of process `pid` (0: this process) to the one CPU
/// `cpu`, or to every CPU when `cpu` is -1. Returns the number of threads changed.
int cpingpong_place(int pid, int cpu);

/// Ends the child and closes the socket.
void cpingpong_stop(int socket, int pid);

/// The baseline for launches: posix_spawn `path` with a pipe as descriptor 3 and time until
/// the one byte it writes there is read. Returns 0 or -1.
int cpingpong_spawn_first_byte(const char *path, uint64_t *nanoseconds);

/// host.extensions.100's baseline: posix_spawn `path` (a bare C program) with one end of a
/// socketpair as descriptor 3, not waiting for it. Returns this end (the child lives while it
/// is open), or -1; `*pid` is the child.
int cpingpong_spawn_holding(const char *path, int *pid);

/// Writes one byte to `socket` and reads one back. Returns 0 or -1.
int cpingpong_echo_byte(int socket);

/// ipc.concurrent.8's baseline: `pairs` ping-pong pairs at once, each a thread of this process
/// and a forked child (cpingpong_start), making round trips of `size` bytes for `duration_ns`,
/// both sides waiting as cpingpong_roundtrip_spinning does for `spin_ns`. Returns the calls made
/// by all, or -1.
long long cpingpong_concurrent(int pairs, size_t size, uint64_t spin_ns, uint64_t duration_ns);

#endif
