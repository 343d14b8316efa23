import AppexSystem
import AppexTesting
import Foundation
import Testing

// Child processes a test starts and talks to.

/// What a finished child process said.
struct ProcessOutput {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs `executable` with `arguments` and waits for it, killing it after `timeout` seconds so a
/// hung child can never outlive the test. The waiting happens on a thread of its own, never on
/// Swift's cooperative pool, so tests that run children do not starve tests that await.
func run(_ executable: String, _ arguments: [String], environment: [String: String], input: String? = nil, timeout: Double = 30) async throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    let out = Pipe(), err = Pipe(), inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    if input != nil { process.standardInput = inPipe }
    try process.run()
    if let input {
        inPipe.fileHandleForWriting.write(Data(input.utf8))
        try inPipe.fileHandleForWriting.close()
    }
    let pid = process.processIdentifier
    let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    let box = UncheckedBox((process, out, err, watchdog))
    return await withCheckedContinuation { continuation in
        startDetachedThread(name: "test.child") {
            let (process, out, err, watchdog) = box.value
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            watchdog.cancel()
            continuation.resume(returning: ProcessOutput(
                status: process.terminationStatus,
                standardOutput: String(decoding: stdout, as: UTF8.self),
                standardError: String(decoding: stderr, as: UTF8.self)))
        }
    }
}

/// Runs the `appex` CLI in `world`.
func appex(_ arguments: String..., in world: AppexTestEnvironment, input: String? = nil) async throws -> ProcessOutput {
    try await run(appexExecutable, arguments, environment: world.processVariables, input: input)
}

/// A child process spoken to line by line on its standard input and output.
final class LineChild: @unchecked Sendable {  // each pipe end is used by one thread at a time
    let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffer = Data()

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    /// The next line (blocking: call it off Swift's pool); `nil` at end of output.
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

    func end() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// Reads one line from each child, each on a thread of its own.
func readLines(_ children: [LineChild]) async -> [String?] {
    await withTaskGroup(of: (Int, String?).self) { group in
        for (index, child) in children.enumerated() {
            group.addTask {
                await withCheckedContinuation { continuation in
                    startDetachedThread(name: "test.line") { continuation.resume(returning: (index, child.readLine())) }
                }
            }
        }
        var lines = [String?](repeating: nil, count: children.count)
        for await (index, line) in group { lines[index] = line }
        return lines
    }
}

/// Whether `pid` names a live process (not gone, not a zombie waiting for its parent).
func isRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    let state = stat[stat.index(after: close)...].split(separator: " ").first
    return state != "Z" && state != "X"
}
