import Dispatch
import Synchronization

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program this process runs unconfined: a tool Appex asks (`--print-binding`), an app it
/// opens, a host it runs in the background, the desktop's `xdg-open`. Spawned on the spawner
/// thread as every child is (``SandboxedSpawn`` with no sandbox) and reaped by the event
/// thread or by the caller that waits, so nothing else (Foundation's `Process`) reaps our
/// children or spawns beside the spawner thread.
///
/// The child starts in a process group of its own, with every signal at its default, standard
/// input `/dev/null`, and none of this process's descriptors but standard output and error as
/// ``output`` and ``errorOutput`` say.
package struct Subprocess: Sendable {
    /// Where the child's standard output or error goes.
    package enum Output: Sendable, Equatable {
        /// This process's own (descriptor 1 or 2).
        case inherited
        /// `/dev/null`.
        case discarded
        /// A pipe this process reads: its lines are the outcome's ``Outcome/lines`` (standard
        /// output of a run only: for standard error, or for a started child nobody reads, it
        /// means discarded). At most ``lineLimit`` lines are kept, the rest read and dropped.
        case captured
        /// The file at the path, made (mode 0600) or emptied: for output read while the child
        /// still runs (``start()``).
        case file(String)
    }

    /// How a run ended.
    package struct Outcome: Sendable {
        /// How the child ended.
        package let status: ExitStatus
        /// What it wrote to standard output, line by line, when it was captured.
        package let lines: [String]
        /// Whether its time limit ended it.
        package let timedOut: Bool

        /// Its exit code; `nil` when a signal ended it.
        package var exitCode: Int32? { status.signal == nil ? (status.rawValue >> 8) & 0xff : nil }
    }

    /// The most lines of captured output kept.
    package static let lineLimit = 10_000

    /// The program (opened once, at its path, not following a link at its last component).
    package var executable: String
    /// Its arguments, after its name.
    package var arguments: [String]
    /// Its whole environment.
    package var environment: [String: String]
    /// Its working directory.
    package var workingDirectory: String
    /// Where its standard output goes. Default: inherited.
    package var output: Output = .inherited
    /// Where its standard error goes. Default: inherited.
    package var errorOutput: Output = .inherited

    /// A run of `executable` with `arguments` and exactly `environment`, in `workingDirectory`.
    package init(
        _ executable: String,
        arguments: [String] = [],
        environment: [String: String],
        workingDirectory: String = "/"
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
    }

    // MARK: - Starting

    /// Starts it and lets it go: the event thread reaps it when it ends; nothing waits for it.
    ///
    /// - Returns: its pid.
    @discardableResult
    package func start() async throws(SystemError) -> Int32 {
        let prepared = try prepare(capturing: false)
        let pid = try await prepared.spawn.run()
        withExtendedLifetime((prepared.writer, prepared.files)) {}
        reapWhenItEnds(pid)
        return pid
    }

    /// As the async ``start()``, waiting on this thread for the spawner thread.
    @available(*, noasync, message: "waits for the spawner thread; use the async start()")
    @discardableResult
    package func startWaiting() throws(SystemError) -> Int32 {
        let prepared = try prepare(capturing: false)
        let pid = try prepared.spawn.runWaiting()
        withExtendedLifetime((prepared.writer, prepared.files)) {}
        reapWhenItEnds(pid)
        return pid
    }

    // MARK: - Running to the end

    /// Runs it to its end, holding no thread while it runs. Past `timeLimit` it gets `SIGTERM`
    /// and, `grace` later, `SIGKILL` (no `grace`: `SIGKILL` at once); a cancelled task kills it
    /// at once. Returns once it is reaped and its captured output has ended (or 2 s after it
    /// exited, when a descendant keeps the pipe open).
    package func run(timeLimit: Duration? = nil, grace: Duration? = nil) async throws(SystemError) -> Outcome {
        var prepared = try prepare()
        let child = ChildProcess(pid: try await prepared.spawn.run())
        prepared.writer = nil
        let collected = Collected()
        if let reader = prepared.reader {
            if !EventThread.shared.forEachLine(of: reader, collected.add, atEnd: collected.end) {
                // No event thread: the output is lost, the run is not (closing the pipe here gives
                // the child EPIPE rather than a pipe nobody empties).
                prepared.reader = nil
                collected.end()
            }
        } else {
            collected.end()  // nothing captured: nothing to wait for
        }
        let ended = AsyncStream<ExitStatus>.makeStream(bufferingPolicy: .bufferingNewest(1))
        if !child.whenExits({ ended.continuation.yield($0) }) {
            DispatchQueue.global().async {
                ended.continuation.yield(ProcessControl.waitForExit(of: child.pid) ?? ExitStatus(rawValue: Signal.kill))
            }
        }
        let watchdog = timeLimit.map { limit in
            Task {
                try await Task.sleep(for: limit)
                guard child.exitStatus == nil else { return }  // it ended in time
                collected.markTimedOut()
                if let grace {
                    child.signal(SIGTERM)
                    try await Task.sleep(for: grace)
                }
                child.kill()
            }
        }
        // The wait is a task of its own, which the caller's cancellation does not reach: a
        // cancelled caller kills the child, then still waits (without spinning) until it is reaped.
        let finished = Task { () -> ExitStatus? in
            var statuses = ended.stream.makeAsyncIterator()
            let status = await statuses.next()
            let outputEnd = ContinuousClock.now + .seconds(2)
            while !collected.hasEnded && ContinuousClock.now < outputEnd {
                try? await Task.sleep(for: .milliseconds(5))
            }
            return status
        }
        let status = await withTaskCancellationHandler {
            await finished.value
        } onCancel: {
            child.kill()
        }
        watchdog?.cancel()
        return Outcome(
            status: status ?? ExitStatus(rawValue: Signal.kill),
            lines: collected.lines,
            timedOut: collected.timedOut
        )
    }

    /// As the async ``run(timeLimit:grace:)``, on this thread: it reads the output and waits
    /// for the end itself (no event thread), killing the child at `timeLimit` (`SIGKILL`).
    @available(*, noasync, message: "blocks until the child ends; use the async run(timeLimit:grace:)")
    package func runWaiting(timeLimit: Duration) throws(SystemError) -> Outcome {
        var prepared = try prepare()
        defer { withExtendedLifetime(prepared) {} }
        let pid = try prepared.spawn.runWaiting()
        prepared.writer = nil
        let deadline = ContinuousClock.now + timeLimit
        let collected = Collected()
        if let reader = prepared.reader {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            reading: while true {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { break }
                let milliseconds = Int32(
                    clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
                )
                let readable: Bool
                do { readable = try Socket.waitReadable(reader.rawValue, timeoutMilliseconds: milliseconds) } catch {
                    break reading  // the pipe cannot be waited on: its output ends here
                }
                guard readable else { continue }
                let count = buffer.withUnsafeMutableBytes { raw in (try? Pipe.read(reader.rawValue, into: raw)) ?? 0 }
                guard count > 0 else { break reading }
                pending.append(contentsOf: buffer[0..<count])
                if pending.count > 64 * 1024, pending.firstIndex(of: 0x0a) == nil { pending.removeAll() }  // as the event thread drops it
                while let newline = pending.firstIndex(of: 0x0a) {
                    collected.add(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { collected.add(String(decoding: pending, as: UTF8.self)) }
        }
        var status = ProcessControl.reapIfEnded(pid)
        while status == nil && ContinuousClock.now < deadline {
            ProcessControl.sleep(microseconds: 1_000)
            status = ProcessControl.reapIfEnded(pid)
        }
        // Timed out only when it was still running at the limit (a descendant may hold the pipe).
        let timedOut = status == nil
        if status == nil {
            ProcessControl.signal(Signal.kill, toProcess: pid)  // not reaped yet: the pid is still its
            status = ProcessControl.waitForExit(of: pid)
        }
        return Outcome(status: status ?? ExitStatus(rawValue: Signal.kill), lines: collected.lines, timedOut: timedOut)
    }

    // MARK: - Plumbing

    private struct Prepared {
        var spawn: SandboxedSpawn
        /// The read end of the captured output's pipe.
        var reader: OwnedDescriptor?
        /// Its write end, the child's standard output: held until the spawn is done, then closed
        /// here, so the output ends when the child (and whatever it passed it to) closes it.
        var writer: OwnedDescriptor?
        /// The files of ``Output/file(_:)`` outputs, held until the spawn is done.
        var files: [OwnedDescriptor] = []
    }

    /// Opens the executable (its links resolved, as `execvp` would follow them) and, for
    /// captured output, a pipe.
    private func prepare(capturing: Bool = true) throws(SystemError) -> Prepared {
        let opened = try OpenedExecutable.open(try Syscalls.realPath(executable))
        let pipe = capturing && output == .captured ? try Pipe.make() : nil
        var files: [OwnedDescriptor] = []
        func descriptor(_ output: Output, standard: Int32) throws(SystemError) -> Int32 {
            switch output {
            case .inherited: return standard
            case .discarded: return -1
            case .captured: return standard == 1 ? (pipe?.write.rawValue ?? -1) : -1
            case .file(let path):
                let opened = try syscall("open(\(path))") {
                    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                }
                files.append(OwnedDescriptor(taking: opened))
                return opened
            }
        }
        let spawn = SandboxedSpawn(
            executable: opened,
            arguments: [executable] + arguments,
            environment: environment.map { "\($0.key)=\($0.value)" },
            inherited: [],
            output: try descriptor(output, standard: 1),
            errorOutput: try descriptor(errorOutput, standard: 2),
            workingDirectory: workingDirectory,
            sandbox: nil
        )
        return Prepared(spawn: spawn, reader: pipe?.read, writer: pipe?.write, files: files)
    }

    private func reapWhenItEnds(_ pid: Int32) {
        let child = ChildProcess(pid: pid)
        if !child.whenExits({ _ in }) {
            DispatchQueue.global().async { _ = ProcessControl.waitForExit(of: pid) }
        }
    }
}

/// Captured lines, kept up to ``Subprocess/lineLimit``, whether the output has ended, and
/// whether the time limit ended the child.
private final class Collected: Sendable {
    private let state = Mutex<(lines: [String], ended: Bool, timedOut: Bool)>(([], false, false))

    func add(_ line: String) {
        state.withLock { if $0.lines.count < Subprocess.lineLimit { $0.lines.append(line) } }
    }

    func end() { state.withLock { $0.ended = true } }

    func markTimedOut() { state.withLock { $0.timedOut = true } }

    var lines: [String] { state.withLock { $0.lines } }
    var hasEnded: Bool { state.withLock { $0.ended } }
    var timedOut: Bool { state.withLock { $0.timedOut } }
}
