import AppexCore
import AppexSystem
import Foundation

/// What an extension printed: every line of its standard output and standard error, written
/// by every host that launched it, in `$APPEX_HOME/Logs/BUNDLE_ID.log`.
///
/// Each line reads `2026-12-07T06:20:01.123Z [PID] HOST: TEXT`: when the host read it, the
/// extension's process, the host's bundle identifier and the line as printed (its control
/// characters written as `\u{1b}`, so that it cannot take over a reader's terminal). A host
/// writes each line here and to its own swift-log handler
/// (``AppExtensionProcess/Configuration/logger``, at `info`). The file is kept near
/// ``sizeLimit``: past it, it becomes `BUNDLE_ID.log.1`, replacing the one before. `appex log`
/// prints it; `appex call` and `appex conform` print a failed call's lines.
public struct ExtensionLog: Sendable {
    /// The extension whose lines these are.
    public let bundleIdentifier: String
    private let file: RotatingLog

    /// The size, in bytes, at which the log is moved to `PATH.1`: 1 MiB.
    public static let sizeLimit = 1 << 20

    /// The log of `bundleIdentifier` under `environment`'s home.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalid-name` when the identifier could name
    ///   a path outside `Logs/` (empty, a `/`, or a leading `.`).
    public init(bundleIdentifier: String, environment: AppexEnvironment = .current()) throws(AppexError) {
        guard !bundleIdentifier.isEmpty, !bundleIdentifier.contains("/"), !bundleIdentifier.hasPrefix(".") else {
            throw AppexError(
                .invalidName,
                "\(bundleIdentifier.debugDescription) is not a bundle identifier: it names no log",
                context: .init(bundleIdentifier: bundleIdentifier)
            )
        }
        self.bundleIdentifier = bundleIdentifier
        file = RotatingLog(
            path: environment.home + "/Logs/\(bundleIdentifier).log",
            limit: Int64(Self.sizeLimit)
        )
    }

    /// The file written now.
    public var path: String { file.path }

    /// Every line kept, oldest first: the file before (`PATH.1`), then this one. None when the
    /// extension never printed anything.
    public func lines() throws(AppexError) -> [String] {
        do { return try file.lines() } catch { throw .fileSystem("read", path, error) }
    }

    /// The lines kept of one process of the extension, oldest first.
    public func lines(ofProcess processIdentifier: Int32) throws(AppexError) -> [String] {
        try lines().filter { Self.line($0, isOf: processIdentifier) }
    }

    /// Whether `line` was printed by the process `processIdentifier` (its second field).
    private static func line(_ line: String, isOf processIdentifier: Int32?) -> Bool {
        guard let processIdentifier else { return true }
        guard let space = line.firstIndex(of: " ") else { return false }
        return line[space...].hasPrefix(" [\(processIdentifier)] ")
    }

    /// The lines kept, then each new line as a host writes it, until the task that iterates
    /// stops; a move to `PATH.1` loses none. Only one process's, given `processIdentifier`. Woken by inotify on the `Logs` folder, read from
    /// where it left off. Fails with ``/AppexVocabulary/AppexError`` `file-system` when the
    /// folder cannot be watched or a file cannot be read.
    public func follow(ofProcess processIdentifier: Int32? = nil) -> AsyncThrowingStream<String, any Error> {
        let (changes, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let folder = (path as NSString).deletingLastPathComponent
        let path = path
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let watcher: DirectoryWatcher
                    do throws(SystemError) {
                        try Syscalls.makeDirectories(folder, mode: 0o700)
                        watcher = try DirectoryWatcher { signal.yield() }
                    } catch { throw AppexError.fileSystem("watch", folder, error) }
                    defer { watcher.stop() }
                    _ = watcher.watch([folder])
                    var reader = FollowedFile(path: path)
                    for line in try reader.startingLines() where Self.line(line, isOf: processIdentifier) {
                        continuation.yield(line)
                    }
                    for await _ in changes {
                        for line in try reader.newLines() where Self.line(line, isOf: processIdentifier) {
                            continuation.yield(line)
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in
                task.cancel()
                signal.finish()
            }
        }
    }

    /// Writes one line the extension printed, from the host process `host` launched as `pid`.
    package func append(_ text: String, processIdentifier: Int32, host: String) {
        let line = "\(Date().formatted(Self.timestamp)) [\(processIdentifier)] \(host): \(Self.visible(text))"
        do {
            try file.append(line)
        } catch  where error.errno == .noSuchFileOrDirectory {
            // The first line of the first extension under this home: make `Logs` and try again.
            try? Syscalls.makeDirectories((path as NSString).deletingLastPathComponent, mode: 0o700)
            try? file.append(line)
        } catch {
            // A log that cannot be written loses the line; the host's handler has it.
        }
    }

    private static let timestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// `text` with its control characters (but tabs) written as `\u{1b}`: what an extension
    /// prints cannot move a reader's cursor, clear the screen or hide the line's prefix.
    static func visible(_ text: String) -> String {
        var visible = ""
        for scalar in text.unicodeScalars {
            if (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value) {
                visible += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                visible.unicodeScalars.append(scalar)
            }
        }
        return visible
    }
}

/// Where ``ExtensionLog/follow()`` has read to: the file (by its inode) and the offset in it.
private struct FollowedFile {
    let path: String
    var inode: UInt64?
    var offset = 0

    /// Every line now, both files.
    mutating func startingLines() throws(AppexError) -> [String] {
        let older = try read(path + ".1", from: 0).lines
        let (lines, status, end) = try read(path, from: 0)
        inode = status?.inode
        offset = end
        return older + lines
    }

    /// The lines written since the last read; after a move to `PATH.1`, the rest of the file
    /// that moved, then the new one from its start.
    mutating func newLines() throws(AppexError) -> [String] {
        var lines: [String] = []
        let current = try? Syscalls.stat(path)
        if let current, current.inode == inode, current.size < Int64(offset) {
            offset = 0  // emptied in place: read it from its start
        }
        if let inode, current?.inode != inode {
            let moved = try? Syscalls.stat(path + ".1")
            if moved?.inode == inode { lines += try read(path + ".1", from: offset).lines }
            offset = 0
        }
        let (new, status, end) = try read(path, from: offset)
        inode = status?.inode
        offset = end
        return lines + new
    }

    /// The whole lines of `file` after `start`, its status, and where the last whole line ends.
    private func read(
        _ file: String,
        from start: Int
    ) throws(AppexError) -> (
        lines: [String], status: FileStatus?, end: Int
    ) {
        let bytes: [UInt8]
        let status: FileStatus
        do {
            status = try Syscalls.stat(file)
            bytes = try Syscalls.readFile(file, limit: ExtensionLog.sizeLimit * 4)
        } catch  where error.errno == .noSuchFileOrDirectory {
            return ([], nil, 0)
        } catch {
            throw .fileSystem("read", file, error)
        }
        guard start < bytes.count, let last = bytes.lastIndex(of: 0x0a), last >= start else {
            return ([], status, min(start, bytes.count))
        }
        let lines = bytes[start..<last].split(separator: 0x0a, omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
        return (lines, status, last + 1)
    }
}
