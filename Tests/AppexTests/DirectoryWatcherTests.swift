import AppexTestTiers
import AppexTesting
import Foundation
import Synchronization
import Testing

@testable import AppexSystem

/// The watcher under the monitor: it keeps what still watches the path it was made for, and
/// registers again what was removed or moved away, so a directory put in its place is seen.
@Suite(.timed) struct DirectoryWatcherTests {
    @Test(
        "a watched directory moved away, or removed, is no longer current; watching the same paths again registers the directory now there, and a change in it is seen"
    )
    func lostDirectoriesAreWatchedAgain() async throws {
        let root = try TemporaryDirectory(prefix: "appex-watcher")
        let (moved, removed) = (root.appending("Moved"), root.appending("Removed"))
        for path in [moved, removed] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let changes = Mutex(0)
        let watcher = try DirectoryWatcher { changes.withLock { $0 += 1 } }
        defer { watcher.stop() }
        #expect(watcher.watch([moved, removed]))
        // (Not `isUpToDate`: the losses it compares are the process's, and other suites running
        // beside this one lose directories of their own; what is this watcher's is that its
        // registrations are current, so the same paths again register nothing.)
        #expect(!watcher.watch([moved, removed]), "the same paths again register nothing")
        // Each replaced by a new directory at the same path.
        try FileManager.default.moveItem(atPath: moved, toPath: root.appending("Elsewhere"))
        try FileManager.default.removeItem(atPath: removed)
        for path in [moved, removed] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        #expect(await eventually(within: 10) { !watcher.isUpToDate }, "the losses were not noticed")
        #expect(watcher.watch([moved, removed]), "the new directories were not registered")
        #expect(!watcher.watch([moved, removed]), "the new directories were registered once")
        let before = changes.withLock { $0 }
        for path in [moved, removed] {
            _ = FileManager.default.createFile(atPath: path + "/file", contents: Data("x".utf8))
        }
        #expect(
            await eventually(within: 10) { changes.withLock { $0 } >= before + 2 },
            "a change in a new directory was missed"
        )
        // The directory that moved away is no longer watched: a change there is not reported.
        try await Task.sleep(for: .milliseconds(200))  // the writes' last events (close) come in later reads
        let settled = changes.withLock { $0 }
        _ = FileManager.default.createFile(atPath: root.appending("Elsewhere") + "/file", contents: Data("x".utf8))
        try await Task.sleep(for: .milliseconds(200))  // an event, if one came, arrives well within this
        #expect(changes.withLock { $0 } == settled)
    }

    @Test(
        "a file watch is called when the file is touched or written, not when a sibling in its directory is written"
    )
    func fileWatchSeesOnlyItsFile() async throws {
        let root = try TemporaryDirectory(prefix: "appex-filewatch")
        let (signal, sibling) = (root.appending("signal"), root.appending("sibling-wal"))
        for path in [signal, sibling] { _ = FileManager.default.createFile(atPath: path, contents: Data()) }
        let calls = Mutex(0)
        let token = try EventThread.shared.whenFileChanges(signal) { calls.withLock { $0 += 1 } }
        defer { EventThread.shared.cancel(token) }
        for _ in 0..<20 { try Data("frame".utf8).append(toFileAt: sibling) }
        try await Task.sleep(for: .milliseconds(200))  // an event, if one came, arrives well within this
        #expect(calls.withLock { $0 } == 0, "a write to a sibling called the file's watch")
        touchFile(signal)
        #expect(await eventually(within: 10) { calls.withLock { $0 } >= 1 }, "the touch was missed")
        let touched = calls.withLock { $0 }
        try Data("x".utf8).append(toFileAt: signal)
        #expect(await eventually(within: 10) { calls.withLock { $0 } > touched }, "the write was missed")
    }
}

extension Data {
    /// Appends these bytes to the file at `path`.
    fileprivate func append(toFileAt path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path), "cannot open \(path)")
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: self)
    }
}
