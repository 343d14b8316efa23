import CAppexSystem

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
import Dispatch
#endif

/// An extension's main thread: runs its work as a task and serves the main queue (the main
/// actor's jobs) on this thread until that work ends the process.
///
/// An `async` main does the same through `dispatch_main`, which ends the main thread with
/// `pthread_exit`. Its forced unwind makes the unwinder find the thread's frames, and in a
/// statically linked executable (`-static-executable`) that first search sorts every frame
/// description of the binary: about 13 ms at each start of a 10 MB one
/// (docs/decisions/0168-extension-start-layout.md). This loop never unwinds: it
/// waits on libdispatch's main-queue descriptor and drains the queue, as CoreFoundation's run
/// loop does.
package enum MainThreadLoop {
    /// Runs `work` as a detached task and serves the main queue on the calling thread (the
    /// main thread) forever; the process ends when `work` (or anything else) calls `exit`. When
    /// `work` returns, the process exits with status 0. Called on another thread (from a task),
    /// it runs `work` the same way and blocks that thread until the process ends.
    package static func run(_ work: @escaping @Sendable () async -> Void) -> Never {
        #if os(Linux)
        guard cappex_thread_id() == getpid() else {
            // Not the main thread: called from a task (top-level code that awaited something
            // runs under dispatch_main, on its threads). The work runs as a task; this thread
            // waits for the process to end.
            Task.detached {
                await work()
                exit(EXIT_SUCCESS)
            }
            while true { pause() }
        }
        let handle = _dispatch_get_main_queue_handle_4CF()  // before the task can enqueue anything
        Task.detached {
            await work()
            exit(EXIT_SUCCESS)
        }
        var wait = pollfd(fd: handle, events: Int16(POLLIN), revents: 0)
        var count: UInt64 = 0
        while true {
            if poll(&wait, 1, -1) < 0 { continue }  // EINTR: wait again
            _ = read(handle, &count, MemoryLayout<UInt64>.size)  // clears the eventfd
            _dispatch_main_queue_callback_4CF(nil)
        }
        #else
        Task.detached {
            await work()
            exit(EXIT_SUCCESS)
        }
        dispatchMain()
        #endif
    }
}
