import Synchronization

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one thread that spawns extension processes, alive as long as the host.
///
/// Linux sends an extension's parent-death signal when the *thread* that spawned it ends, not
/// the process: spawned from a thread of Swift's pool (which retires idle threads), an extension
/// would be killed whenever that thread went away. Every spawn therefore happens here.
package final class SpawnerThread: @unchecked Sendable {  // `requests` is a Mutex; `signal` is a POSIX semaphore, safe to share
    package static let shared = SpawnerThread()

    private struct Request: @unchecked Sendable {  // the job and its done-semaphore are handed over once
        let job: @Sendable () -> Void
        let done: UnsafeMutablePointer<sem_t>
        /// Nobody waits on `done`: the spawner frees it (an async caller resumes from `job`).
        var releasesDone = false
    }

    private final class Queue: Sendable {
        let items = Mutex<[Request]>([])
    }

    private let requests = Queue()
    private let signal: UnsafeMutablePointer<sem_t>
    private let started: Bool

    private init() {
        signal = .allocate(capacity: 1)
        sem_init(signal, 0, 0)
        let box = UnsafeSendable(signal)
        let requests = self.requests
        started = startDetachedThread(name: "appex.spawner") {
            let signal = box.value
            while true {
                while sem_wait(signal) != 0 {}
                let next = requests.items.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                guard let next else { continue }
                next.job()
                if next.releasesDone {
                    sem_destroy(next.done)
                    next.done.deallocate()
                } else {
                    sem_post(next.done)
                }
            }
        }
    }

    /// Runs `body` on the spawner thread and resumes with its result, holding no thread while it
    /// waits; on this thread if the spawner could not start.
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        guard started else { return body() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
            sem_init(done, 0, 0)
            requests.items.withLock {
                $0.append(Request(job: { continuation.resume(returning: body()) }, done: done, releasesDone: true))
            }
            sem_post(signal)
        }
    }

    /// Runs `body` on the spawner thread and waits for it; on this thread if none could start.
    @available(*, noasync, message: "blocks until the spawner thread ran it; use the async run(_:)")
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        guard started else { return body() }
        let result = Mutex<T?>(nil)
        let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        sem_init(done, 0, 0)
        defer {
            sem_destroy(done)
            done.deallocate()
        }
        requests.items.withLock { $0.append(Request(job: { result.withLock { $0 = body() } }, done: done)) }
        sem_post(signal)
        while sem_wait(done) != 0 {}
        return result.withLock { $0! }
    }
}

/// A pointer to memory that lives as long as the process (the spawner's semaphore).
private struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
