import AppexTestTiers
import Foundation
import Testing

@Suite(.timed)
struct TestWatchdogTests {
    @Test(
        "a test that runs past its tier's limit ends the test run with status 1, printing its name, the tests running, the processes and each thread's stack"
    )
    func endsAHungRun() throws {
        // This test binary again, running only the test below, which never ends, with a limit
        // of 3 s; the watchdog must end it well before this test's own bound.
        let run = Process()
        run.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        run.arguments = ["--testing-library", "swift-testing", "--filter", "TestWatchdogTests/hangsOnPurpose"]
        var variables = ProcessInfo.processInfo.environment
        variables["APPEX_WATCHDOG_PROBE"] = "1"
        variables["APPEX_TEST_TIME_LIMIT"] = "3"
        variables["APPEX_TEST_TIER"] = nil
        variables["APPEX_TEST_TIMINGS"] = nil
        run.environment = variables
        let errors = Pipe()
        run.standardError = errors
        run.standardOutput = FileHandle.nullDevice
        let started = ContinuousClock.now
        try run.runWithSignalsUnblocked()
        let pid = run.processIdentifier
        let bound = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 180, execute: bound)
        let printed = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.waitUntilExit()
        bound.cancel()
        #expect(run.terminationReason == .exit && run.terminationStatus == 1, "\(run.terminationReason) \(printed)")
        #expect(
            ContinuousClock.now - started < .seconds(170),
            "the watchdog (3 s, then gdb's minute at most) did not end the run"
        )
        #expect(
            printed.contains("TestWatchdog: \"TestWatchdogTests the probe: never ends\" ran past its 3 s"),
            "\(printed)"
        )
        #expect(
            printed.contains("Tests running now:\n")
                && printed.contains(" s  TestWatchdogTests the probe: never ends\n"),
            "\(printed)"
        )
        #expect(printed.contains("Processes:") && printed.contains("PID"), "\(printed)")
        // The stack of the thread the probe holds, by the function it waits in, when gdb could
        // attach within its minute (it can hang on a process whose main thread has ended).
        #expect(printed.contains("Threads of the test process:"), "\(printed)")
        if printed.contains("\nThread ") { #expect(printed.contains("hangsOnPurpose"), "\(printed)") }
    }

    /// The probe the test above runs: a test that never ends, holding its thread as a hung call
    /// does. Skipped unless that test asks for it.
    @Test("the probe: never ends", .enabled(if: ProcessInfo.processInfo.environment["APPEX_WATCHDOG_PROBE"] == "1"))
    func hangsOnPurpose() {
        while true { sleep(3600) }
    }
}
