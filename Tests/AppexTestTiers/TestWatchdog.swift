import Foundation
import Synchronization

/// Ends the test process when a test has run past its tier's limit, after printing what would
/// say why: every test running then (and for how long), the processes below this one, and each
/// thread's stack (`gdb`, which `Scripts/setup.sh` installs).
///
/// A test that never ends otherwise holds its tier until CI's own limit: on 2026-12-07 CI's 90
/// minutes ran out in the product tier, whose output said nothing of which test waited. With
/// this, such a test fails the run within its limit, by name. The timer is a Dispatch timer, not
/// a task: a hang that holds every thread of Swift's pool still fires it.
enum TestWatchdog {
    /// How long one test (one case of a parameterized test) may run in `tier`: several times the
    /// slowest test's time on a loaded machine (a template's README compiles a package: minutes;
    /// the product's longest run a minute and a half beside the fuzz build).
    /// `APPEX_TEST_TIME_LIMIT` (seconds) sets another, for every tier: longer under a debugger,
    /// shorter for the watchdog's own test.
    static func limit(in tier: Tier) -> Duration {
        if let seconds = ProcessInfo.processInfo.environment["APPEX_TEST_TIME_LIMIT"].flatMap(Int.init), seconds > 0 {
            return .seconds(seconds)
        }
        return tier == .template ? .seconds(1800) : .seconds(600)
    }

    /// Runs `body`, the test `name` of `tier`, ending the process if it runs past the limit.
    static func watch(_ name: String, in tier: Tier, _ body: () async throws -> Void) async throws {
        let id = running.withLock { state -> UInt64 in
            state.next += 1
            state.tests[state.next] = (name, .now)
            return state.next
        }
        let limit = limit(in: tier)
        let expiry = DispatchWorkItem { expire(name, after: limit) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(limit.components.seconds)), execute: expiry)
        defer {
            expiry.cancel()
            _ = running.withLock { $0.tests.removeValue(forKey: id) }
        }
        try await body()
    }

    /// The tests running now, by the order they started in.
    private static let running = Mutex<
        (next: UInt64, tests: [UInt64: (name: String, started: ContinuousClock.Instant)])
    >(
        (0, [:])
    )

    private static func expire(_ name: String, after limit: Duration) {
        let now = ContinuousClock.now
        let tests = running.withLock { $0.tests.sorted { $0.key < $1.key }.map(\.value) }
        var report = "TestWatchdog: \"\(name)\" ran past its \(limit.components.seconds) s; ending the run.\n"
        report += "Tests running now:\n"
        for test in tests { report += "  \((now - test.started).components.seconds) s  \(test.name)\n" }
        fflush(nil)  // what Swift Testing printed before, then this
        FileHandle.standardError.write(Data(report.utf8))
        let me = String(getpid())
        show("Processes:", running: "/usr/bin/ps", ["-e", "--forest", "-o", "pid,ppid,etimes,args"])
        // (gdb's complaints about the debug information, one for each of thousands of units, left
        // out. It is given a minute: its attach can hang on a process whose main thread has
        // ended, as Swift Testing's has.)
        show(
            "Threads of the test process:",
            running: "/bin/sh",
            [
                "-c",
                "command -v gdb >/dev/null && timeout -k 5 60 gdb -p \(me) -batch -nx -q -ex 'thread apply all bt 24' 2>&1"
                    + " | grep -v '^During symbol reading'",
            ]
        )
        _exit(1)
    }

    /// Prints `title`, then runs `executable` with its output on standard error,
    /// and waits for it. A plain spawn and wait: Foundation's `Process` waits through the run loop
    /// and Dispatch, which the hang may be holding.
    private static func show(_ title: String, running executable: String, _ arguments: [String]) {
        FileHandle.standardError.write(Data((title + "\n").utf8))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return }
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }
}
