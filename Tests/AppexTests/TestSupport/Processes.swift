import AppexSystem
import AppexTestTiers
import AppexTesting
import Foundation
import Synchronization
import Testing

// Child processes: every one a test starts is bounded by a deadline and reaped, even when the
// test fails. Waiting for them happens on threads of their own, never on Swift's cooperative
// pool, so tests that run children do not starve tests that await.

/// What a finished child process said.
struct ProcessOutput {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs `executable` with `arguments` and waits for it, killing it (SIGKILL) after `timeout`
/// seconds so a hung child can never outlive the test. Tests that kill a child at a chosen
/// moment pass that moment as `timeout`.
func run(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String],
    input: String? = nil,
    timeout: Double = 30
) async throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    let out = Pipe()
    let err = Pipe()
    let inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    if input != nil { process.standardInput = inPipe }
    try process.runWithSignalsUnblocked()
    if let input {
        inPipe.fileHandleForWriting.write(Data(input.utf8))
        try inPipe.fileHandleForWriting.close()
    }
    let pid = process.processIdentifier
    // The whole tree: a build's compilers hold its pipes open after the build itself is gone.
    let watchdog = DispatchWorkItem { killTree(pid) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    let box = UncheckedBox((process, out, err, watchdog))
    return await withCheckedContinuation { continuation in
        startDetachedThread(name: "test.child") {
            let (process, out, err, watchdog) = box.value
            // Both pipes are drained at once: a child that fills one (64 KiB of a build's log on
            // standard error) while the other is read to its end would block forever.
            let errors = UncheckedBox(ErrorOutput())
            let drained = DispatchGroup()
            drained.enter()
            let started = startDetachedThread(name: "test.child.stderr") {
                errors.value.data = err.fileHandleForReading.readDataToEndOfFile()
                drained.leave()
            }
            if !started { drained.leave() }
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            drained.wait()
            let stderr = started ? errors.value.data : err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            watchdog.cancel()
            continuation.resume(
                returning: ProcessOutput(
                    status: process.terminationStatus,
                    standardOutput: String(decoding: stdout, as: UTF8.self),
                    standardError: String(decoding: stderr, as: UTF8.self)
                )
            )
        }
    }
}

/// Kills `root` and every process descended from it (found through `/proc`'s parent links while
/// `root` still holds them together), the descendants first.
func killTree(_ root: Int32) {
    var parents: [Int32: Int32] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { continue }
        // "pid (comm) state ppid …": the command may hold spaces and parentheses.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 1, let parent = Int32(fields[1]) { parents[pid] = parent }
    }
    var tree: Set<Int32> = [root]
    var grew = true
    while grew {
        grew = false
        for (pid, parent) in parents where tree.contains(parent) && !tree.contains(pid) {
            tree.insert(pid)
            grew = true
        }
    }
    for pid in tree where pid != root { kill(pid, SIGKILL) }
    kill(root, SIGKILL)
}

/// What a child wrote on standard error, filled by the thread that reads it (the group it leaves
/// orders the write before the read).
private final class ErrorOutput: @unchecked Sendable {
    var data = Data()
}

/// Runs the toolchain's `swift` with `arguments` (SwiftPM's own `SWIFT_EXEC_PATH` when the
/// tests run under it, else `swift` on the path), in the test process's environment.
func swift(
    _ arguments: [String],
    environment: [String: String] = ProcessInfo.processInfo.environment,
    timeout: Double
) async throws -> ProcessOutput {
    let swift = ProcessInfo.processInfo.environment["SWIFT_EXEC_PATH"] ?? "/usr/bin/env"
    return try await run(
        swift,
        swift.hasSuffix("env") ? ["swift"] + arguments : arguments,
        environment: environment,
        timeout: timeout
    )
}

/// Runs the `appex` CLI in `world`.
func appex(_ arguments: String..., in world: AppexTestEnvironment, input: String? = nil) async throws -> ProcessOutput {
    try await run(appexExecutable, arguments, environment: world.processVariables, input: input)
}

/// A child process spoken to line by line on its standard input and output.
final class LineChild: @unchecked Sendable {  // each pipe end, and the buffer, is used by one thread at a time
    let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffer = Data()

    /// Starts `executable`; its standard error goes to the test's unless `discardingStandardError`.
    init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        discardingStandardError: Bool = false
    ) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        if discardingStandardError { process.standardError = FileHandle.nullDevice }
        try process.runWithSignalsUnblocked()
    }

    var pid: Int32 { process.processIdentifier }

    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    /// The next line (blocking: call it off Swift's pool, as ``readLines(_:within:sourceLocation:)``
    /// does); `nil` at end of output.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Closes its input (the fixtures end at end of input) and reaps it; killed (SIGKILL) if it
    /// has not ended within `seconds`.
    func end(within seconds: Double = 10) {
        try? input.fileHandleForWriting.close()
        let pid = self.pid
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
    }
}

/// Reads one line from each child, each on a thread of its own. A child that has not answered
/// within `seconds` fails the test, naming it, and is killed (its line is then `nil`), so the
/// wait never outlives the deadline.
func readLines(
    _ children: [LineChild],
    within seconds: Double = 60,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> [String?] {
    final class Answered: Sendable { let indices = Mutex(Set<Int>()) }
    let answered = Answered()
    let watchdog = Task {
        try await Task.sleep(for: .seconds(seconds))  // the deadline itself
        let late = answered.indices.withLock { answered in children.indices.filter { !answered.contains($0) } }
        for index in late { kill(children[index].pid, SIGKILL) }
        return late.map { children[$0].pid }
    }
    let lines = await withTaskGroup(of: (Int, String?).self) { group in
        for (index, child) in children.enumerated() {
            group.addTask {
                await withCheckedContinuation { continuation in
                    startDetachedThread(name: "test.line") {
                        let line = child.readLine()
                        answered.indices.withLock { _ = $0.insert(index) }
                        continuation.resume(returning: (index, line))
                    }
                }
            }
        }
        var lines = [String?](repeating: nil, count: children.count)
        for await (index, line) in group { lines[index] = line }
        return lines
    }
    watchdog.cancel()
    if case .success(let killed) = await watchdog.result, !killed.isEmpty {
        Issue.record(
            "no line within \(seconds) s from pid \(killed.map(String.init).joined(separator: ", ")) (killed)",
            sourceLocation: sourceLocation
        )
    }
    return lines
}

/// Whether `pid` names a live process (not gone, not a zombie waiting for its parent).
func isRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return false }
    let state = stat[stat.index(after: close)...].split(separator: " ").first
    return state != "Z" && state != "X"
}

/// Waits until `pid` has ended (a zombie counts: it runs no more), or `seconds` pass. Woken by
/// the process's pidfd, which becomes readable when it ends, through this process's event
/// thread: no polling, no thread held. Works for any process, not only children.
/// - Returns: whether it ended in time.
func waitForExit(of pid: Int32, within seconds: Double) async -> Bool {
    guard let pidfd = ProcessControl.openPidfd(pid) else {
        // Gone already (ESRCH), or a kernel without pidfds: then the state is all there is.
        return await eventually(within: seconds) { !isRunning(pid) }
    }
    _ = await EventThread.shared.readable(pidfd.rawValue, within: .seconds(seconds))
    return !isRunning(pid)
}

// MARK: - Writers killed at random moments

/// The numbers a counting writer printed, one a line (`AppexFixtureStore write-loop`,
/// `keychain-loop`, `sharing-loop`: each commits the stored number plus one, again and again,
/// and prints each number once it is committed).
func printedNumbers(_ output: ProcessOutput) -> [Int] {
    output.standardOutput.split(separator: "\n").compactMap { Int($0) }
}

/// Checks one run of a counting writer killed at a random moment: it continued from the number
/// stored before (`storedBefore`, 0 for none), printed each next number once (none skipped,
/// none repeated), and what is stored now (`storedAfter`, `nil` for none) is the last number it
/// printed or, killed between committing and printing, the one after — never less (a reported
/// commit lost) and never more.
/// - Returns: what is stored now (0 for none), the next run's `storedBefore`.
@discardableResult
func expectCountedOn(
    from storedBefore: Int,
    printed: [Int],
    storedAfter: Int?,
    _ what: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Int {
    let expected = Array((storedBefore + 1)..<(storedBefore + 1 + printed.count))
    #expect(
        printed == expected,
        "\(what()): after \(storedBefore) the writer printed \(printed.prefix(3))…\(printed.suffix(3)) (\(printed.count) numbers)",
        sourceLocation: sourceLocation
    )
    let last = printed.last ?? storedBefore
    let stored = storedAfter ?? 0
    #expect(
        stored == last || stored == last + 1,
        "\(what()): stored \(storedAfter.map(String.init) ?? "nothing") after the writer printed \(last) last",
        sourceLocation: sourceLocation
    )
    return stored
}

/// Runs `executable` until it has printed `lines` lines, lets it go on for a random moment of up
/// to `extra` seconds, kills it with SIGKILL, and returns every line it printed — so the kill
/// always lands while it works, however slowly a loaded machine runs it. The reading, the pause
/// and the kill happen on a thread of their own: a busy cooperative pool cannot delay the kill.
/// A child that has not printed them within `within` seconds is killed and fails the test.
func killedWhileWorking(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String],
    afterLines lines: Int = 1,
    extra: ClosedRange<Double> = 0...0.3,
    within: Double = 60,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> [String] {
    let child = try LineChild(executable, arguments, environment: environment)
    let pid = child.pid
    let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + within, execute: watchdog)
    let pause = Double.random(in: extra)
    let (printed, reachedLines) = await withCheckedContinuation {
        (continuation: CheckedContinuation<([String], Bool), Never>) in
        let started = startDetachedThread(name: "test.child-lines") {
            var printed: [String] = []
            while printed.count < lines, let line = child.readLine() { printed.append(line) }
            let reached = printed.count == lines
            if reached {
                Thread.sleep(forTimeInterval: pause)
                kill(pid, SIGKILL)
            }
            while let line = child.readLine() { printed.append(line) }
            child.end(within: 5)
            continuation.resume(returning: (printed, reached))
        }
        if !started { continuation.resume(returning: ([], false)) }
    }
    watchdog.cancel()
    if !reachedLines {
        Issue.record(
            "\(executable) ended after \(printed.count) of the \(lines) lines expected",
            sourceLocation: sourceLocation
        )
    }
    return printed
}
