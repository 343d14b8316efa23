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
        /// Runs after `done` is posted (or the async caller resumed), before the next request.
        var afterwards: (@Sendable () -> Void)?
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
                next.afterwards?()
            }
        }
    }

    /// Runs `body` on the spawner thread and resumes with its result, holding no thread while it
    /// waits; on this thread if the spawner could not start. `afterwards` then runs on the
    /// spawner thread with the result, after the caller resumed and before any other request
    /// (not at all without the spawner thread).
    package func run<T: Sendable>(
        _ body: @escaping @Sendable () -> T,
        afterwards: (@Sendable (T) -> Void)? = nil
    ) async -> T {
        guard started else { return body() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
            sem_init(done, 0, 0)
            let result = ResultBox<T>()
            let request = Request(
                job: {
                    let value = body()
                    result.value.withLock { $0 = value }
                    continuation.resume(returning: value)
                },
                done: done,
                afterwards: Self.after(afterwards, reading: result),
                releasesDone: true
            )
            requests.items.withLock { $0.append(request) }
            sem_post(signal)
        }
    }

    /// Runs `body` on the spawner thread and waits for it; on this thread if none could start.
    /// `afterwards` as in the async ``run(_:afterwards:)``.
    @available(*, noasync, message: "blocks until the spawner thread ran it; use the async run(_:afterwards:)")
    package func run<T: Sendable>(
        _ body: @escaping @Sendable () -> T,
        afterwards: (@Sendable (T) -> Void)? = nil
    ) -> T {
        guard started else { return body() }
        let result = ResultBox<T>()
        let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        sem_init(done, 0, 0)
        defer {
            sem_destroy(done)
            done.deallocate()
        }
        let request = Request(
            job: { result.value.withLock { $0 = body() } },
            done: done,
            afterwards: Self.after(afterwards, reading: result)
        )
        requests.items.withLock { $0.append(request) }
        sem_post(signal)
        while sem_wait(done) != 0 {}
        return result.value.withLock { $0! }
    }
}

extension SpawnerThread {
    /// `afterwards` given the result the job stored in `box`.
    fileprivate static func after<T: Sendable>(
        _ afterwards: (@Sendable (T) -> Void)?,
        reading box: ResultBox<T>
    ) -> (@Sendable () -> Void)? {
        guard let afterwards else { return nil }
        return { if let value = box.value.withLock({ $0 }) { afterwards(value) } }
    }
}

/// Where a job leaves its result for the caller and for `afterwards`.
private final class ResultBox<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}

/// A pointer to memory that lives as long as the process (the spawner's semaphore).
private struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
