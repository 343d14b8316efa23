import AppexCore
import AppexHost
import AppexSystem
import Foundation
import Synchronization

/// The checks of `appex conform`, run in order against one extension; each prints a line.
struct ConformanceSuite {
    /// The wire protocol the checks hold the extension to.
    static let protocolVersion = 2

    /// The first check that failed, and why.
    struct Failure: Error {
        let check: String
        let reason: String
        /// What the extension printed meanwhile (its lines in its log), when known.
        var output: [String]?
    }

    let identity: AppExtensionIdentity
    let hostPath: String
    let environment: AppexEnvironment
    let message: [UInt8]
    let slowMessage: [UInt8]?

    /// How long an answer that should come at once may take.
    static let promptly = Duration.seconds(1)

    /// Runs every check, printing a line for each; throws the first ``Failure``.
    func run() async throws {
        let interruptions = Interruptions()
        let process: AppExtensionProcess
        do {
            process = try await AppExtensionProcess(
                configuration: .init(
                    identity: identity,
                    hostBundlePath: hostPath,
                    environment: environment,
                    onInterruption: { interruptions.record($0) }
                )
            )
        } catch {
            throw Failure(check: "launch", reason: "\(error)")
        }
        defer { process.invalidate() }
        do {
            let child = try await handshake(process)
            report("echo", try await echo(process))
            report("cancellation", try await cancellation(process))
            report("deadline", try await deadline(process))
            report("large-payload", try await largePayload(process))
            report("bad-frame", try await badFrame(process, child: child, interruptions: interruptions))
        } catch var failure as Failure {
            // What it printed says why, more often than the check can.
            process.invalidate()
            failure.output = await process.printedLines(waitingAtMost: .seconds(1))
            throw failure
        }
        report("host-death", try await hostDeath())
    }

    private func report(_ check: String, _ line: String) {
        print("ok   \(check): \(line)")
    }

    // MARK: - Checks

    private func handshake(_ process: AppExtensionProcess) async throws -> ConformanceChild {
        let start = ContinuousClock.now
        do {
            let child = try await process.launchForConformance()
            report(
                "handshake",
                "answered the host's hello as \(identity.bundleIdentifier) (pid \(child.pid)) in \(Self.milliseconds(since: start))"
            )
            return child
        } catch {
            throw Failure(check: "handshake", reason: "\(error)")
        }
    }

    private func echo(_ process: AppExtensionProcess) async throws -> String {
        let reply = try await call(process, message, check: "echo")
        return "the test message (\(message.count) bytes) answered with \(reply.count) bytes: \(Self.excerpt(reply))"
    }

    private func cancellation(_ process: AppExtensionProcess) async throws -> String {
        let request = slowMessage ?? message
        let call = Task { try await process.call(request) }
        if slowMessage != nil { try? await Task.sleep(for: .milliseconds(100)) }
        call.cancel()
        let outcome = await call.result
        let start = ContinuousClock.now
        _ = try await self.call(process, message, check: "cancellation", within: Self.promptly)
        let form =
            slowMessage == nil
            ? "a call cancelled as it was sent (no --slow-message)"
            : "a slow call cancelled after 100 ms (\(Self.describe(outcome)))"
        return "\(form); the next call was answered in \(Self.milliseconds(since: start))"
    }

    private func deadline(_ process: AppExtensionProcess) async throws -> String {
        guard let slowMessage else {
            _ = try await call(process, message, check: "deadline", within: .seconds(5))
            return "the test message answered within a 5 s deadline (no --slow-message: the deadline was not reached)"
        }
        do {
            _ = try await process.call(slowMessage, timeout: .milliseconds(200))
            throw Failure(check: "deadline", reason: "the slow message was answered within 200 ms: it is not slow")
        } catch let error as AppexError where error.code == .deadlineExceeded {
            // As it should: the host gave up and told the extension to stop.
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(check: "deadline", reason: "the slow call failed otherwise than by its deadline: \(error)")
        }
        let start = ContinuousClock.now
        _ = try await call(process, message, check: "deadline", within: Self.promptly)
        return
            "a slow call ended by its 200 ms deadline; the next call was answered in \(Self.milliseconds(since: start))"
    }

    private func largePayload(_ process: AppExtensionProcess) async throws -> String {
        let size = 2 * process.sharedMemoryThresholdForConformance
        let large = Self.padded(message, to: size)
        let reply = try await call(process, large, check: "large-payload", within: .seconds(10))
        return "a \(large.count)-byte message (in a sealed memfd) answered with \(reply.count) bytes"
    }

    private func badFrame(
        _ process: AppExtensionProcess,
        child: ConformanceChild,
        interruptions: Interruptions
    ) async throws -> String {
        do {
            try await process.sendFrameForConformance(kind: 0xEE, requestID: 1 << 62, payload: [])
        } catch {
            throw Failure(check: "bad-frame", reason: "cannot send the bad frame: \(error)")
        }
        guard interruptions.wait(within: Self.promptly) != nil else {
            throw Failure(
                check: "bad-frame",
                reason:
                    "a frame of unknown kind 238 did not end the connection within 1 s (the extension must refuse it and close)"
            )
        }
        let ending = child.ending(within: Self.promptly) ?? "still running"
        if ending.contains("signal") && !ending.contains("signal 9") {
            throw Failure(check: "bad-frame", reason: "the extension crashed on a frame of unknown kind: \(ending)")
        }
        return "a frame of unknown kind 238 ended the connection (\(ending))"
    }

    /// One call that must be answered with a reply within `deadline`.
    private func call(
        _ process: AppExtensionProcess,
        _ request: [UInt8],
        check: String,
        within deadline: Duration = .seconds(5)
    ) async throws -> [UInt8] {
        do {
            return try await process.call(request, timeout: deadline)
        } catch {
            throw Failure(check: check, reason: "\(error)")
        }
    }

    /// A host killed with SIGKILL: `appex call --hold` launches the extension, is killed, and
    /// the extension must be gone within 1 s.
    private func hostDeath() async throws -> String {
        let outputPath = NSTemporaryDirectory() + "/appex-conform-\(getpid())-host"
        defer { unlink(outputPath) }
        var host = Subprocess(
            "/proc/self/exe",
            arguments: [
                "call", "--host", hostPath, identity.bundleIdentifier, String(decoding: message, as: UTF8.self),
                "--hold",
            ],
            environment: ProcessInfo.processInfo.environment
        )
        host.output = .file(outputPath)
        host.errorOutput = .discarded
        let hostPID: Int32
        do { hostPID = try await host.start() } catch {
            throw Failure(check: "host-death", reason: "cannot start a host (appex call --hold): \(error)")
        }
        var pid: Int32?
        let launching = ContinuousClock.now
        while pid == nil, ContinuousClock.now - launching < .seconds(10) {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            pid = text.split(separator: "\n").first { $0.hasPrefix("extension pid ") }
                .flatMap { Int32($0.dropFirst("extension pid ".count)) }
            if pid == nil { try? await Task.sleep(for: .milliseconds(10)) }
        }
        kill(hostPID, SIGKILL)
        guard let pid else {
            throw Failure(
                check: "host-death",
                reason: "the host (appex call --hold) did not launch the extension within 10 s"
            )
        }
        let start = ContinuousClock.now
        while Self.isRunning(pid) {
            if ContinuousClock.now - start > Self.promptly {
                kill(pid, SIGKILL)
                throw Failure(
                    check: "host-death",
                    reason: "the extension (pid \(pid)) still ran 1 s after its host was killed"
                )
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return "the extension (pid \(pid)) was gone \(Self.milliseconds(since: start)) after its host was killed"
    }

    /// Whether `pid` names a process that has not ended (a zombie has ended: its new parent
    /// reaps it when it gets to it).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state != "Z" && state != "X"
    }

    // MARK: - Words and bytes

    /// `message` made at least `size` bytes long: a JSON object gets a padding member first;
    /// anything else is repeated.
    static func padded(_ message: [UInt8], to size: Int) -> [UInt8] {
        let trimmed = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("{") else {
            var result = message
            while result.count < size { result += message.isEmpty ? [0x20] : message }
            return result
        }
        let rest = trimmed.dropFirst().trimmingCharacters(in: .whitespacesAndNewlines)
        let padding = String(repeating: "a", count: size)
        return Array(("{\"appexPadding\":\"\(padding)\"" + (rest == "}" ? "" : ",") + rest).utf8)
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let value = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return String(format: "%.1f ms", value)
    }

    static func excerpt(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(80), as: UTF8.self)
        return bytes.count > 80 ? text + "…" : text
    }

    static func describe(_ outcome: Result<[UInt8], any Error>) -> String {
        switch outcome {
        case .success: "it was answered before the cancel reached it"
        case .failure(let error as AppexError): "it ended \(error.code)"
        case .failure(let error): "it ended: \(error)"
        }
    }
}

/// The interruptions of the extension's process, for the check that waits for one.
private final class Interruptions: Sendable {
    private let seen = Mutex<[AppexError]>([])

    func record(_ error: AppexError) { seen.withLock { $0.append(error) } }

    /// The first interruption, waiting up to `timeout` for it.
    func wait(within timeout: Duration) -> AppexError? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let first = seen.withLock({ $0.first }) { return first }
            usleep(2000)
        }
        return seen.withLock { $0.first }
    }
}
