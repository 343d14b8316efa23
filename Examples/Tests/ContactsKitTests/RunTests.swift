import AppexTestTiers
import AppexTesting
import ContactsKit
import Foundation
import Synchronization
import Testing

/// What a long-running process printed so far, read on a thread of its own.
final class PrintedLines: Sendable {
    private let text = Mutex("")

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let more = handle.availableData
                if more.isEmpty { return }
                self.text.withLock { $0 += String(decoding: more, as: UTF8.self) }
            }
        }
    }

    var all: String { text.withLock { $0 } }

    /// Waits (up to `timeout`) until the output after `offset` holds `wanted`; returns the offset
    /// just past it.
    @discardableResult
    func wait(
        for wanted: String,
        after offset: String.Index? = nil,
        timeout: Duration = .seconds(60)
    ) async throws
        -> String.Index
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let now = all
            if let found = now.range(of: wanted, range: (offset ?? now.startIndex)..<now.endIndex) {
                return found.upperBound
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no \"\(wanted)\" within \(timeout); printed:\n\(all)")
        throw CancellationError()
    }
}

/// `ContactsExplorer run`: the app left running with its widget and extensions.
@Suite(.timed, .tags(.product)) struct RunTests {
    let explorer: ContactsExplorerTests

    init() throws { explorer = try ContactsExplorerTests() }

    @Test(
        "run follows the owner's approvals, syncs once logged in and redraws its widget with the contacts, and stops cleanly on SIGTERM"
    )
    func staysUpAndStops() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 12)
        let running = try explorer.start(["run", "--sync-interval", "0.5"], server: server)
        let lines = PrintedLines(try #require((running.standardOutput as? Pipe)?.fileHandleForReading))
        let errors = PrintedLines(try #require((running.standardError as? Pipe)?.fileHandleForReading))
        defer {
            if running.isRunning {
                kill(running.processIdentifier, SIGKILL)
                Issue.record("still running; its errors: \(errors.all)")
            }
        }
        try await lines.wait(for: "translators: Translate\n")
        try await lines.wait(for: "Log in to ContactsExplorer")

        #expect(try explorer.run(["extensions", "enable", "com.lingualabs.translate"], server: server).status == 0)
        try await lines.wait(for: "translators: Lingua, Translate\n")

        let mark = try await lines.wait(for: "widgets at")
        #expect(try explorer.logIn(user, server: server).status == 0)
        try await lines.wait(for: "synced: 12 contacts", after: mark)
        let newest = try #require(try explorer.store().recent(limit: 1).first)
        // Its first word: a long name wraps at a space in the widget's narrow row
        // ("Αλέξανδρος" above "Παπαδόπουλος"), so more than that may stand on two lines.
        let firstWord = newest.name.split(separator: " ").first.map(String.init) ?? newest.name
        try await lines.wait(for: String(firstWord.prefix(12)), after: mark)

        kill(running.processIdentifier, SIGTERM)
        running.waitUntilExit()
        #expect(running.terminationStatus == 0)
        #expect(lines.all.hasSuffix("ContactsExplorer stopped\n"), "\(lines.all)")
    }
}
