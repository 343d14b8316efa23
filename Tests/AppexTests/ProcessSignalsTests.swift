import AppexTestTiers
import Foundation
import Testing

@Suite(.timed)
struct ProcessSignalsTests {
    /// Whether `terminate()` (SIGTERM) ends, within `seconds`, a `sleep` started by `start`.
    private func terminateEnds(within seconds: Int, startedWith start: (Process) throws -> Void) throws -> Bool {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["60"]
        try start(child)
        child.terminate()
        let deadline = ContinuousClock.now + .seconds(seconds)
        while child.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        let ended = !child.isRunning
        if !ended { kill(child.processIdentifier, SIGKILL) }
        child.waitUntilExit()
        return ended
    }

    @Test("terminate() ends a process a test starts, where one started with run() on a test's thread lives on")
    func terminateEndsIt() throws {
        #expect(try terminateEnds(within: 5) { try $0.runWithSignalsUnblocked() })
        // Why the helper is there: a thread of Swift's pool blocks SIGTERM, and run() passes
        // its mask on. (Should Foundation reset it one day, this fails, and the helper can go.)
        #expect(try !terminateEnds(within: 1) { try $0.run() })
    }
}
