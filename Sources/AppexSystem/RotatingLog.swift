#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A log file that any number of processes append lines to, kept near `limit` bytes: a writer
/// that finds it at the limit moves it to `PATH.1` (replacing the one before) and starts a new
/// one, so at most about twice the limit is kept.
///
/// Each line is one `O_APPEND` write, so lines of several processes never interleave. Two
/// writers that find the file full move it once: the move is taken under `PATH.lock`, and only
/// while the file at the path is full.
package struct RotatingLog: Sendable {
    /// The file written now; the one before is `path + ".1"`.
    package let path: String
    /// The size past which the next line starts a new file.
    package let limit: Int64

    /// A log at `path` (its folder must exist), moved aside past `limit` bytes.
    package init(path: String, limit: Int64) {
        self.path = path
        self.limit = limit
    }

    /// Appends `line` and a newline (mode 0600 for a new file), moving the file aside first
    /// when it has reached the limit.
    package func append(_ line: String) throws(SystemError) {
        if let status = try? Syscalls.stat(path), status.size >= limit { try moveAsideIfFull() }
        try Syscalls.append(Array((line + "\n").utf8), toFile: path, mode: 0o600)
    }

    /// The lines of the file before and of this one, oldest first (a line cut by a move is
    /// kept whole: lines are written whole).
    package func lines() throws(SystemError) -> [String] {
        var lines: [String] = []
        for file in [path + ".1", path] {
            let bytes: [UInt8]
            do { bytes = try Syscalls.readFile(file, limit: Int(limit) * 4) } catch
                where error.errno == .noSuchFileOrDirectory
            {
                continue
            }
            lines += bytes.split(separator: 0x0a, omittingEmptySubsequences: true).map {
                String(decoding: $0, as: UTF8.self)
            }
        }
        return lines
    }

    /// Moves the file to `PATH.1` if it has reached the limit, under `PATH.lock`: a writer that
    /// found it full after another moved it finds the new file under the limit and moves nothing.
    ///
    /// Whether it is full is read again under the lock, not whether the path still names the
    /// file the writer found full: an inode number freed when a move replaced the `.1` before it
    /// can name the new file, and a writer that had waited that long moved a file of 2,360 bytes
    /// for a 4,096-byte limit (the main tier on a fresh clone, 2026-12-07).
    package func moveAsideIfFull() throws(SystemError) {
        let lock = try FileLock(path: path + ".lock")
        // Waits for a writer that is moving it: one that went on instead wrote to the full file
        // again at each line for as long as the mover was descheduled (a .1 of 14 KB for a
        // 4-KB limit, on a loaded machine).
        try lock.lock()
        defer { lock.unlock() }
        guard let now = try? Syscalls.stat(path), now.size >= limit else {
            return  // moved already, by a writer that found it full too
        }
        _ = try syscall("rename(\(path))") { rename(path, path + ".1") }
    }
}
