import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@testable import AppexSystem

/// AppexSystem's `Subprocess`, through which every program Appex runs unconfined is spawned
/// (`--print-binding`, a background run, an app a widget opens, `xdg-open`): output, limits,
/// cancellation, and no child left unreaped.
@Suite(.timed) struct SubprocessTests {
    /// Whether `pid` still names a process (a zombie included): `/proc/<pid>` is there.
    private func exists(_ pid: Int32) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/\(pid)")
    }

    private func shell(_ script: String) -> Subprocess {
        Subprocess("/bin/sh", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin"])
    }

    @Test("a run's captured output comes back line by line with its exit code; standard error is not mixed in")
    func capturesOutput() async throws {
        var run = shell("printf 'one\\ntwo\\nlast'; echo noise >&2; exit 3")
        run.output = .captured
        run.errorOutput = .discarded
        let outcome = try await run.run(timeLimit: .seconds(20))
        #expect(outcome.lines == ["one", "two", "last"])
        #expect(outcome.exitCode == 3)
        #expect(!outcome.timedOut)
    }

    @Test("the blocking run reads the same output and exit code, without the event thread")
    func blockingRunCapturesOutput() throws {
        var run = shell("echo com.example.host.Point; exit 0")
        run.output = .captured
        let outcome = try run.runWaiting(timeLimit: .seconds(20))
        #expect(outcome.lines == ["com.example.host.Point"])
        #expect(outcome.exitCode == 0)
    }

    @Test("past its time limit a child gets SIGTERM, and SIGKILL after the grace when it ignores it")
    func timeLimitTermsThenKills() async throws {
        let directory = try TemporaryDirectory()
        let marker = directory.appending("term")
        var run = shell("trap 'echo got > \(marker)' TERM; while :; do sleep 0.05; done")
        run.output = .discarded
        let started = ContinuousClock.now
        let outcome = try await run.run(timeLimit: .milliseconds(300), grace: .milliseconds(300))
        #expect(outcome.timedOut)
        #expect(outcome.status.signal == SIGKILL, "it ignored SIGTERM, so SIGKILL ended it: \(outcome.status)")
        #expect(FileManager.default.fileExists(atPath: marker), "SIGTERM came first")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("the blocking run kills a child that outlives its time limit")
    func blockingRunKillsAtTheLimit() throws {
        var run = shell("echo started; exec sleep 30")
        run.output = .captured
        let outcome = try run.runWaiting(timeLimit: .milliseconds(300))
        #expect(outcome.timedOut)
        #expect(outcome.status.signal == SIGKILL)
        #expect(outcome.lines == ["started"])
    }

    @Test("a cancelled run kills its child at once and returns only once it is reaped")
    func cancellationKills() async throws {
        let directory = try TemporaryDirectory()
        let pidFile = directory.appending("pid")
        let run = shell("echo $$ > \(pidFile); exec sleep 30")
        let task = Task { try await run.run() }
        defer { task.cancel() }  // a failure below leaves no child behind
        var pid: Int32?
        for _ in 0..<400 where pid == nil {
            try await Task.sleep(for: .milliseconds(10))
            pid = (try? String(contentsOfFile: pidFile, encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        let child = try #require(pid, "the child never wrote its pid")
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.status.signal == SIGKILL)
        #expect(!exists(child), "the killed child was reaped, not left a zombie")
    }

    @Test("a started child is let go, and reaped by the event thread when it ends")
    func startedChildIsReaped() async throws {
        let pid = try await shell("exit 0").start()
        let deadline = ContinuousClock.now + .seconds(10)
        while exists(pid) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!exists(pid), "pid \(pid) is still there (a zombie nobody reaped)")
    }

    @Test("a program that is not there fails with the system error that names it")
    func missingProgram() async throws {
        let run = Subprocess("/nonexistent/tool", environment: [:])
        let error = await #expect(throws: SystemError.self) { try await run.run() }
        #expect(error?.call.contains("/nonexistent/tool") == true, "\(String(describing: error))")
    }

    @Test("a run that captures nothing returns as soon as its child is reaped")
    func uncapturedRunReturnsAtOnce() async throws {
        var run = shell("exit 0")
        run.output = .discarded
        let started = ContinuousClock.now
        _ = try await run.run()
        #expect(ContinuousClock.now - started < .seconds(1.5), "it waited for an output that does not exist")
    }
}
