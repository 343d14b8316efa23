#if os(Linux)
// The process's one event thread: epoll over child pidfds, output pipes and one inotify
// descriptor, with timers. swift-subprocess's Linux monitor thread is the model.
import CAppexSystem
@preconcurrency import Glibc
import Synchronization

/// The one thread of the process that waits for events: children ending (their pidfds), their
/// output (pipes), directory changes (one inotify descriptor for every watch), and timers.
///
/// It replaces a thread per child (the reaper and the output reader) and a thread, inotify
/// descriptor and pipe per defaults observer: a host with dozens of extensions and observers
/// runs on this one thread plus its connections' executors. Handlers run on the thread, one at
/// a time: they must return quickly and never block (a SQLite read of a change log is fine; a
/// network call is not). Started on first use, it lives as long as the process.
package final class EventThread: Sendable {
    /// The process's event thread.
    package static let shared = EventThread()

    /// Names a registration, to cancel it.
    package struct Token: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    /// What a readiness handler wants next.
    package enum Disposition: Sendable {
        /// Keep calling when the descriptor is ready again.
        case keep
        /// Stop watching (the registration is removed and its descriptor released).
        case remove
    }

    private enum Kind {
        /// A descriptor: `handler` runs when it is readable or hung up.
        case readable(OwnedDescriptor, @Sendable () -> Disposition)
        /// A directory (or file) watch: `handler` runs after events in the directory (or on the file).
        case directory(watch: Int32, @Sendable () -> Void)
    }

    /// A timer: `handler` runs at `deadline`, then every `interval`.
    private struct Timer {
        var deadline: ContinuousClock.Instant
        let interval: Duration
        let handler: @Sendable () -> Void
    }

    private struct State: ~Copyable {
        var registrations: [UInt64: Kind] = [:]
        /// The timers, apart from the descriptors and directories: a wake-up looks at them only
        /// when one is due (`earliest`), not at every event of every descriptor (a host with a
        /// hundred extensions has a hundred timers and a hundred descriptors here).
        var timers: [UInt64: Timer] = [:]
        /// No later than the earliest deadline among `timers` (`nil`: none). A cancelled timer
        /// may leave it earlier than any left: the look at that moment sets it right.
        var earliest: ContinuousClock.Instant?
        var nextToken: UInt64 = 16  // below: reserved for the wake pipe and inotify
        /// inotify watch descriptor → the directory registrations on it. A watch the kernel
        /// dropped (its directory removed: `IN_IGNORED`) leaves this map; its registrations stay
        /// until cancelled, no longer current.
        var watchers: [Int32: Set<UInt64>] = [:]
        /// Directory registrations whose directory moved away from the path they were made for
        /// (`IN_MOVE_SELF`): the kernel still watches it, but they are no longer current. A new
        /// registration of the same directory at its new path is.
        var movedRegistrations: Set<UInt64> = []
        /// How many times a watched directory was removed or moved away: a watcher whose last
        /// look saw the same count need not ask which of its registrations are current.
        var directoryLosses: UInt64 = 0
        var started = false
        /// When the thread's current wait ends on its own (`nil`: never): a timer due later
        /// need not wake it, as it looks at the timers again before it waits next.
        var waitingUntil: ContinuousClock.Instant?
        var failure: SystemError?
    }

    private let epoll: Int32
    private let wakePipe: WakePipe?
    private let inotify: OwnedDescriptor?
    private let state = Mutex(State())
    private static let wakeToken: UInt64 = 1
    private static let inotifyToken: UInt64 = 2

    private init() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakePipe = try? WakePipe()
        inotify = (try? syscall("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }).map {
            OwnedDescriptor(taking: $0)
        }
        if let wakePipe { add(wakePipe.readEnd.rawValue, token: Self.wakeToken) }
        if let inotify { add(inotify.rawValue, token: Self.inotifyToken) }
    }

    /// Whether the thread runs (or can start): `false` when the kernel refused epoll or a thread.
    package var isAvailable: Bool {
        epoll >= 0 && wakePipe != nil && startIfNeeded()
    }

    /// Why directories cannot be watched here, if they cannot: the thread is not available, or
    /// the kernel refused this process an inotify instance (`max_user_instances`).
    package var directoryWatchFailure: SystemError? {
        guard isAvailable else { return SystemError("epoll_create1 or pthread_create (the event thread)", .noFunction) }
        guard inotify != nil else { return SystemError("inotify_init1 (the event thread's)", .tooManyOpenFiles) }
        return nil
    }

    // MARK: - Registering

    /// Calls `handler` on the event thread whenever `descriptor` is readable or its other end
    /// is closed, until it returns ``Disposition/remove`` or ``cancel(_:)`` is called. The
    /// registration holds the descriptor; it is released when the registration ends.
    ///
    /// - Returns: the registration, or `nil` when the thread is not available.
    package func whenReadable(_ descriptor: OwnedDescriptor, _ handler: @escaping @Sendable () -> Disposition) -> Token?
    {
        guard isAvailable else { return nil }
        let token = state.withLock { state -> UInt64 in
            let token = state.nextToken
            state.nextToken += 1
            state.registrations[token] = .readable(descriptor, handler)
            return token
        }
        guard add(descriptor.rawValue, token: token) else {
            _ = state.withLock { $0.registrations.removeValue(forKey: token) }
            return nil
        }
        return Token(value: token)
    }

    /// Calls `handler` on the event thread every `interval` (the first time after one interval).
    package func every(_ interval: Duration, _ handler: @escaping @Sendable () -> Void) -> Token? {
        guard isAvailable else { return nil }
        let (token, wakes) = state.withLock { state -> (UInt64, Bool) in
            let token = state.nextToken
            state.nextToken += 1
            let deadline = ContinuousClock.now + interval
            state.timers[token] = Timer(deadline: deadline, interval: interval, handler: handler)
            if state.earliest.map({ deadline < $0 }) ?? true { state.earliest = deadline }
            return (token, state.waitingUntil.map { $0 > deadline } ?? true)
        }
        // The thread's wait must end by the new deadline: wake it when it would sleep past it.
        if wakes { wakePipe?.wake() }
        return Token(value: token)
    }

    /// Calls `handler` on the event thread after something changes in the directory `path`
    /// (a file created, written, closed, moved, removed, its attributes changed, or the directory
    /// itself removed or moved away).
    ///
    /// - Throws: ``SystemError`` when the directory cannot be watched (missing, no inotify, no
    ///   watches left).
    package func whenDirectoryChanges(
        _ path: String,
        _ handler: @escaping @Sendable () -> Void
    ) throws(SystemError) -> Token {
        try watch(
            path,
            mask: IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO
                | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR,
            handler
        )
    }

    /// Calls `handler` on the event thread after the file `path` changes: written, closed after
    /// writing, its attributes changed (a `touch`), or the file itself removed or moved away.
    /// Unlike a watch of its directory, writes to the directory's other files do not call it: a
    /// signal file that writers touch after they commit wakes only on commits.
    ///
    /// - Throws: ``SystemError`` when the file cannot be watched (missing, no inotify, no
    ///   watches left).
    package func whenFileChanges(
        _ path: String,
        _ handler: @escaping @Sendable () -> Void
    ) throws(SystemError) -> Token {
        try watch(path, mask: IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF, handler)
    }

    private func watch(
        _ path: String,
        mask: Int32,
        _ handler: @escaping @Sendable () -> Void
    ) throws(SystemError) -> Token {
        guard isAvailable, let inotify else { throw SystemError("inotify_init1", .noFunction) }
        // One kernel watch per inode: a second watch of the same path returns the same
        // descriptor, so registrations on it are counted here.
        return try state.withLock { state throws(SystemError) -> Token in
            let watch = try syscall("inotify_add_watch(\(path))") {
                inotify_add_watch(inotify.rawValue, path, UInt32(bitPattern: mask))
            }
            let token = state.nextToken
            state.nextToken += 1
            state.registrations[token] = .directory(watch: watch, handler)
            state.watchers[watch, default: []].insert(token)
            return Token(value: token)
        }
    }

    /// How many times a watched directory was removed or moved away so far: while it stays the
    /// same, every directory registration that was current still is.
    package var directoryLosses: UInt64 { state.withLock { $0.directoryLosses } }

    /// Whether directory registration `token` still watches the directory at the path it was
    /// made for: `false` once that directory was removed (the kernel dropped the watch) or moved
    /// away, or the registration was cancelled. A watcher registers the path again then.
    package func isCurrent(_ token: Token) -> Bool {
        state.withLock { state in
            guard case .directory(let watch, _)? = state.registrations[token.value] else { return false }
            return state.watchers[watch]?.contains(token.value) == true
                && !state.movedRegistrations.contains(token.value)
        }
    }

    /// Ends a registration; its handler is not called after this returns, unless it is running
    /// now on the event thread.
    package func cancel(_ token: Token) {
        let removed = state.withLock { state -> Kind? in
            if state.timers.removeValue(forKey: token.value) != nil { return nil }
            guard let kind = state.registrations.removeValue(forKey: token.value) else { return nil }
            if case .directory(let watch, _) = kind {
                state.movedRegistrations.remove(token.value)
                state.watchers[watch]?.remove(token.value)
                if state.watchers[watch]?.isEmpty == true {
                    state.watchers[watch] = nil
                    if let inotify { _ = inotify_rm_watch(inotify.rawValue, watch) }
                }
            }
            return kind
        }
        if case .readable(let descriptor, _) = removed { remove(descriptor.rawValue) }
    }

    // MARK: - The loop

    @discardableResult
    private func add(_ fd: Int32, token: UInt64) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        event.data.u64 = token
        return (try? syscall("epoll_ctl(ADD)") { epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) }) != nil
    }

    private func remove(_ fd: Int32) {
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil)
    }

    private func startIfNeeded() -> Bool {
        state.withLock { state -> Bool in
            if state.started { return state.failure == nil }
            state.started = true
            if !startDetachedThread(name: "appex.events", { [self] in run() }) {
                state.failure = SystemError("pthread_create", .resourceTemporarilyUnavailable)
            }
            return state.failure == nil
        }
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let timeout = nextTimeout()
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            if count < 0 && errno != EINTR { return }  // the epoll descriptor itself broke: never expected
            for index in 0..<max(Int(count), 0) {
                let token = events[index].data.u64
                switch token {
                case Self.wakeToken: wakePipe?.drain()
                case Self.inotifyToken: directoryEvents()
                default: readable(token)
                }
            }
            fireTimers()
        }
    }

    private func readable(_ token: UInt64) {
        guard case .readable(_, let handler)? = state.withLock({ $0.registrations[token] }) else { return }
        if handler() == .remove { cancel(Token(value: token)) }
    }

    /// Drains inotify, then runs each directory handler with events once.
    private func directoryEvents() {
        guard let inotify else { return }
        var changed = Set<Int32>()
        var dropped = Set<Int32>()
        var moved = Set<Int32>()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let header = MemoryLayout<inotify_event>.size
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify.rawValue, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            var offset = 0
            while offset + header <= count {
                let (watch, mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                changed.insert(watch)
                if mask & UInt32(IN_IGNORED) != 0 { dropped.insert(watch) }
                if mask & UInt32(IN_MOVE_SELF) != 0 { moved.insert(watch) }
                offset += header + length
            }
        }
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            let handlers = changed.flatMap { watch in
                (state.watchers[watch] ?? []).compactMap { token -> (@Sendable () -> Void)? in
                    if case .directory(_, let handler)? = state.registrations[token] { return handler }
                    return nil
                }
            }
            // After the handlers are taken: a dropped watch's own last event still reaches them.
            state.directoryLosses &+= UInt64(moved.count + dropped.count)
            for watch in moved { state.movedRegistrations.formUnion(state.watchers[watch] ?? []) }
            for watch in dropped {
                state.movedRegistrations.subtract(state.watchers[watch] ?? [])
                state.watchers[watch] = nil
            }
            return handlers
        }
        for handler in handlers { handler() }
    }

    /// Milliseconds until the next timer is due (-1: none), noted as when the wait ends.
    private func nextTimeout() -> Int32 {
        let next = state.withLock { state -> ContinuousClock.Instant? in
            state.waitingUntil = state.earliest
            return state.earliest
        }
        guard let next else { return -1 }
        let remaining = next - .now
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    private func fireTimers() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [@Sendable () -> Void] in
            guard let earliest = state.earliest, earliest <= now else { return [] }
            var handlers: [@Sendable () -> Void] = []
            var next: ContinuousClock.Instant?
            // In place (the dictionary's values, by index): no copy of the timers.
            for index in state.timers.values.indices {
                if state.timers.values[index].deadline <= now {
                    state.timers.values[index].deadline = now + state.timers.values[index].interval
                    handlers.append(state.timers.values[index].handler)
                }
                let deadline = state.timers.values[index].deadline
                if next.map({ deadline < $0 }) ?? true { next = deadline }
            }
            state.earliest = next
            return handlers
        }
        for handler in due { handler() }
    }
}

extension EventThread {
    /// Reaps `pid` when it ends and calls `onExit` with how it ended, on the event thread.
    ///
    /// With a pidfd (Linux 5.3+) the exit wakes the thread; without one, the thread checks every
    /// 10 ms. Either way no thread waits per child.
    ///
    /// - Returns: `false` when the thread is not available (the caller must reap the child).
    package func whenExits(
        _ pid: Int32,
        pidfd: OwnedDescriptor?,
        _ onExit: @escaping @Sendable (ExitStatus) -> Void
    ) -> Bool {
        if let pidfd {
            // A duplicate: the registration holds its own, whatever the caller does with `pidfd`.
            if let copy = try? syscall("dup", { dup(pidfd.rawValue) }),
                whenReadable(
                    OwnedDescriptor(taking: copy),
                    {
                        guard let status = ProcessControl.reapIfEnded(pid) else { return .keep }
                        onExit(status)
                        return .remove
                    }
                ) != nil
            {
                return true
            }
        }
        let token = Mutex<Token?>(nil)
        let registered = every(.milliseconds(10)) { [self] in
            guard let status = ProcessControl.reapIfEnded(pid) else { return }
            if let mine = token.withLock({ $0 }) { cancel(mine) }
            onExit(status)
        }
        token.withLock { $0 = registered }
        return registered != nil
    }

    /// Reads `descriptor` (a pipe) as it fills and calls `onLine` with each line (without its
    /// newline), on the event thread; the rest after the last newline when it ends, then `atEnd`.
    /// A line longer than 64 KiB is dropped.
    ///
    /// - Returns: `false` when the thread is not available.
    package func forEachLine(
        of descriptor: OwnedDescriptor,
        _ onLine: @escaping @Sendable (String) -> Void,
        atEnd: @escaping @Sendable () -> Void = {}
    ) -> Bool {
        _ = fcntl(descriptor.rawValue, F_SETFL, fcntl(descriptor.rawValue, F_GETFL) | O_NONBLOCK)
        let pending = Mutex<[UInt8]>([])
        return whenReadable(descriptor) {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                // nil: nothing more for now; 0: the writer closed it (a read error ends it too).
                let count: Int? = buffer.withUnsafeMutableBytes { raw in
                    do { return try Pipe.read(descriptor.rawValue, into: raw) } catch { return 0 }
                }
                guard let count else { return .keep }
                if count <= 0 {
                    let rest = pending.withLock { $0 }
                    if !rest.isEmpty { onLine(String(decoding: rest, as: UTF8.self)) }
                    atEnd()
                    return .remove
                }
                let lines = pending.withLock { pending -> [String] in
                    pending.append(contentsOf: buffer[0..<count])
                    var lines: [String] = []
                    while let newline = pending.firstIndex(of: 0x0a) {
                        lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                        pending.removeSubrange(...newline)
                    }
                    if pending.count > 64 * 1024 { pending.removeAll() }
                    return lines
                }
                for line in lines { onLine(line) }
            }
        } != nil
    }
}
#endif

#if os(Linux)
extension EventThread {
    /// Waits, without holding any thread, until `fd` is readable (data, or its other end closed)
    /// or `timeout` passes.
    ///
    /// - Returns: `true` when readable, `false` on timeout (or when the event thread cannot watch
    ///   it: the caller then reads and finds out).
    package func readable(_ fd: Int32, within timeout: Duration) async -> Bool {
        guard let copy = try? syscall("dup", { dup(fd) }) else { return true }
        let descriptor = OwnedDescriptor(taking: copy)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            // Whichever comes first resumes, once, and ends the other registration.
            let once = Mutex<(resumed: Bool, tokens: [Token])>((false, []))
            let finish: @Sendable (Bool) -> Void = { [self] outcome in
                let tokens = once.withLock { state -> [Token]? in
                    if state.resumed { return nil }
                    state.resumed = true
                    return state.tokens
                }
                guard let tokens else { return }
                for token in tokens { cancel(token) }
                continuation.resume(returning: outcome)
            }
            let readable = whenReadable(descriptor) {
                finish(true)
                return .remove
            }
            let timer = every(timeout) { finish(false) }
            let late = once.withLock { state -> Bool in
                state.tokens = [readable, timer].compactMap { $0 }
                return state.resumed
            }
            if late { for token in [readable, timer].compactMap({ $0 }) { cancel(token) } }
            if readable == nil || timer == nil { finish(true) }
        }
    }
}
#endif
