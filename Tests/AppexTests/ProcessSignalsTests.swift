import AppexTestTiers
import Foundation
import Testing

@Suite(.timed)
struct ProcessSignalsTests {
    /// Whether `terminate()` (SIGTERM) ends a `sleep` started by `start`: it is killed
    /// (SIGKILL) after `seconds` otherwise, and the signal it died of says which ended it.
    private func terminateEnds(within seconds: Int, startedWith start: (Process) throws -> Void) throws -> Bool {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["60"]
        try start(child)
        let pid = child.processIdentifier
        let bound = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds), execute: bound)
        child.terminate()
        child.waitUntilExit()
        bound.cancel()
        return child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGTERM
    }

    @Test("terminate() ends a process a test starts, where one started with run() on a test's thread lives on")
    func terminateEndsIt() throws {
        #expect(try terminateEnds(within: 5) { try $0.runWithSignalsUnblocked() })
        // Why the helper is there: a thread of Swift's pool blocks SIGTERM, and run() passes
        // its mask on. (Should Foundation reset it one day, this fails, and the helper can go.)
        #expect(try !terminateEnds(within: 1) { try $0.run() })
    }
}
