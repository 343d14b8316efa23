// Plain POSIX threads for the few long-lived loops that must not hold a thread of Swift's pool.
import CAppexSystem

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` on a new detached POSIX thread (named `name` where the C library lets us).
///
/// Used for the few long-lived blocking loops (watchers) that must not occupy a thread of
/// Swift's cooperative pool. A plain pthread, not Foundation's `Thread`.
/// - Returns: `false` when no thread could be created (`pthread_create` failed); `body` never runs.
@discardableResult
package func startDetachedThread(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: @unchecked Sendable {  // handed to exactly one thread, once
        let body: @Sendable () -> Void
        let name: String
        init(_ body: @escaping @Sendable () -> Void, name: String) {
            self.body = body
            self.name = name
        }
    }
    let box = Unmanaged.passRetained(Box(body, name: name)).toOpaque()
    #if canImport(Darwin)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let result = pthread_create(
        &thread,
        nil,
        { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            #if canImport(Darwin)
            pthread_setname_np(String(box.name.prefix(15)))
            #else
            cappex_name_thread(box.name)  // as `ps -L` and crash reports show it
            #endif
            box.body()
            return nil
        },
        box
    )
    if result != 0 {
        // No thread: run nothing, but do not leak the box.
        Unmanaged<Box>.fromOpaque(box).release()
        return false
    }
    #if canImport(Darwin)
    if let thread { pthread_detach(thread) }
    #else
    pthread_detach(thread)
    #endif
    return true
}

/// Which OS thread this is: to tell whether code runs on a loop's own thread.
package struct ThreadIdentity: Equatable, @unchecked Sendable {  // a pthread_t is an opaque id, compared only
    private let thread: pthread_t

    /// The calling thread.
    package static var current: ThreadIdentity { ThreadIdentity(thread: pthread_self()) }

    package static func == (lhs: ThreadIdentity, rhs: ThreadIdentity) -> Bool {
        pthread_equal(lhs.thread, rhs.thread) != 0
    }
}

/// Lets another thread that is ready to run on this core run first (`sched_yield`): what a
/// spinning loop does between its looks, so that a peer placed on the same core — the one it
/// waits for — is not held off until the spin ends.
package func yieldCore() {
    sched_yield()
}
