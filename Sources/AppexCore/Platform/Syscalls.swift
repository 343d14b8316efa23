// The one place where Appex touches the C library directly. Everything above this file
// speaks Swift types; every `#if canImport(Glibc)` chain lives here.

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Appex needs a POSIX C library")
#endif

/// A C error number, as the call that failed reported it.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The raw `errno` value.
    public let rawValue: Int32

    /// Wraps a raw `errno` value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    static var current: Errno { Errno(rawValue: errno) }

    /// `ENOENT`: no such file or directory.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)

    /// The C library's text for this error (`strerror`).
    public var description: String {
        guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: text)
    }
}

/// What `lstat` says about one directory entry, reduced to what Appex needs.
struct FileStatus: Hashable, Sendable {
    enum Kind: Hashable, Sendable { case regular, directory, symbolicLink, other }
    var kind: Kind
    var size: Int64
    var isExecutable: Bool
    var device: UInt64
    var inode: UInt64
    var modificationNanoseconds: Int64
    var changeNanoseconds: Int64
}

enum Syscalls {
    /// `lstat(2)`, retried on `EINTR`.
    static func lstat(_ path: String) throws(Errno) -> FileStatus {
        var st = Glibc_or_Darwin_stat_t()
        while true {
            if Glibc_or_Darwin_lstat(path, &st) == 0 { break }
            if errno == EINTR { continue }
            throw Errno.current
        }
        return FileStatus(st)
    }

    /// `stat(2)` (follows links), retried on `EINTR`.
    static func stat(_ path: String) throws(Errno) -> FileStatus {
        var st = Glibc_or_Darwin_stat_t()
        while true {
            if Glibc_or_Darwin_stat(path, &st) == 0 { break }
            if errno == EINTR { continue }
            throw Errno.current
        }
        return FileStatus(st)
    }

    /// The names in a directory, without `.` and `..`, unsorted.
    static func directoryEntries(_ path: String) throws(Errno) -> [String] {
        guard let dir = opendir(path) else { throw Errno.current }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            names.append(name)
        }
        return names
    }

    /// The target of a symbolic link.
    static func readLink(_ path: String) throws(Errno) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { throw Errno.current }
        guard let target = String(validating: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) else {
            throw Errno(rawValue: EILSEQ)
        }
        return target
    }

    /// Reads a whole file; `limit` bounds what an untrusted file may make us allocate.
    static func readFile(_ path: String, limit: Int) throws(Errno) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Errno.current }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
            if result.count > limit { throw Errno(rawValue: EFBIG) }
        }
        return result
    }

    /// Writes a whole file through a temporary name and `rename(2)`, so readers see the old
    /// contents or the new, never a torn file. `mode` applies to the new file.
    static func writeFileAtomically(_ path: String, bytes: [UInt8], mode: UInt32) throws(Errno) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw Errno.current }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let failure = Errno.current
                close(fd)
                unlink(temporary)
                throw failure
            }
            offset += n
        }
        // Whatever the umask, the file gets exactly `mode`.
        fchmod(fd, mode_t(mode))
        if fsync(fd) != 0 {
            let failure = Errno.current
            close(fd)
            unlink(temporary)
            throw failure
        }
        close(fd)
        if rename(temporary, path) != 0 {
            let failure = Errno.current
            unlink(temporary)
            throw failure
        }
    }

    /// Creates a directory and its parents with `mode`; existing directories are left alone.
    static func makeDirectories(_ path: String, mode: UInt32) throws(Errno) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode_t(mode)) != 0 && errno != EEXIST {
                throw Errno.current
            }
        }
    }

    /// Sets a file's permission bits.
    static func changeMode(_ path: String, _ mode: UInt32) throws(Errno) {
        if chmod(path, mode_t(mode)) != 0 { throw Errno.current }
    }

    /// Creates an empty file with `mode` if none exists yet.
    ///
    /// Never opens an existing file: closing any descriptor of a file drops every POSIX lock the
    /// process holds on it, which would silently drop the locks of a SQLite connection this
    /// process has open on that file (the corruption SQLite's manual warns of).
    static func createFileIfMissing(_ path: String, mode: UInt32) throws(Errno) {
        if access(path, F_OK) == 0 { return }
        #if os(Linux)
        // mknod makes the file without opening it, so not even a racing opener's locks can be dropped.
        if mknod(path, S_IFREG | mode_t(mode), 0) == 0 || errno == EEXIST { return }
        throw Errno.current
        #else
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
        if fd < 0 {
            if errno == EEXIST { return }
            throw Errno.current
        }
        close(fd)
        #endif
    }
}

// MARK: - Platform spellings

#if canImport(Darwin)
typealias Glibc_or_Darwin_stat_t = Darwin.stat
private func Glibc_or_Darwin_lstat(_ path: String, _ st: inout Darwin.stat) -> Int32 { Darwin.lstat(path, &st) }
private func Glibc_or_Darwin_stat(_ path: String, _ st: inout Darwin.stat) -> Int32 { fstatat(AT_FDCWD, path, &st, 0) }
#else
typealias Glibc_or_Darwin_stat_t = Glibc.stat
private func Glibc_or_Darwin_lstat(_ path: String, _ st: inout Glibc.stat) -> Int32 { Glibc.lstat(path, &st) }
private func Glibc_or_Darwin_stat(_ path: String, _ st: inout Glibc.stat) -> Int32 { fstatat(AT_FDCWD, path, &st, 0) }
#endif

extension FileStatus {
    init(_ st: Glibc_or_Darwin_stat_t) {
        let type = st.st_mode & S_IFMT
        switch type {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int64(st.st_size)
        isExecutable = (st.st_mode & 0o111) != 0
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        #if canImport(Darwin)
        modificationNanoseconds = Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
        changeNanoseconds = Int64(st.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(st.st_ctimespec.tv_nsec)
        #else
        modificationNanoseconds = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        changeNanoseconds = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        #endif
    }
}

extension Syscalls {
    /// Streams a file's bytes through `body` in chunks, without holding the whole file.
    static func readChunks(_ path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(Errno) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Errno.current }
        defer { close(fd) }
        let size = 256 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, size)
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            if n == 0 { return }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }
}

extension AppexBundle {
    /// Whether `path` names a directory (following links).
    package static func isDirectory(_ path: String) -> Bool {
        (try? Syscalls.stat(path))?.kind == .directory
    }

    /// The names in a directory, sorted, each with whether it is a directory (a link to a
    /// directory counts); empty when it cannot be read.
    package static func sortedEntriesWithKind(of path: String) -> [(name: String, isDirectory: Bool)] {
        let entries = (try? Syscalls.directoryEntryTypes(path)) ?? []
        return entries
            .map { entry in
                // The entry type from readdir saves a stat; links and unknown types need one.
                let isDirectory = switch entry.type {
                case .directory: true
                case .other: false
                case .symbolicLinkOrUnknown: Self.isDirectory(path + "/" + entry.name)
                }
                return (name: entry.name, isDirectory: isDirectory)
            }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The names in a directory, sorted; empty when it cannot be read.
    package static func sortedEntries(of path: String) -> [String] {
        ((try? Syscalls.directoryEntries(path)) ?? []).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

// MARK: - Files

/// Sets `path`'s times to now (an `IN_ATTRIB` event for directory watchers), without opening it;
/// creates it (0600) first if it is missing. Used to signal "committed" to observers.
package func touchFile(_ path: String) {
    if utimensat(AT_FDCWD, path, nil, 0) == 0 { return }
    if errno == ENOENT, (try? Syscalls.createFileIfMissing(path, mode: 0o600)) != nil {
        _ = utimensat(AT_FDCWD, path, nil, 0)
    }
}

// MARK: - Threads

/// Runs `body` on a new detached POSIX thread (named `name` where the C library lets us).
///
/// Used for the few long-lived blocking loops (watchers) that must not occupy a thread of
/// Swift's cooperative pool. A plain pthread, not Foundation's `Thread`.
/// - Returns: `false` when no thread could be created (`pthread_create` failed); `body` never runs.
@discardableResult
package func startDetachedThread(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: @unchecked Sendable {  // handed to exactly one thread, once
        let body: @Sendable () -> Void
        let name: String
        init(_ body: @escaping @Sendable () -> Void, name: String) { self.body = body; self.name = name }
    }
    let box = Unmanaged.passRetained(Box(body, name: name)).toOpaque()
    #if canImport(Darwin)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let result = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        #if canImport(Darwin)
        pthread_setname_np(String(box.name.prefix(15)))
        #endif
        box.body()
        return nil
    }, box)
    if result != 0 {
        // No thread: run nothing, but do not leak the box.
        Unmanaged<Box>.fromOpaque(box).release()
        return false
    }
    #if canImport(Darwin)
    if let thread { pthread_detach(thread) }
    #else
    pthread_detach(thread)
    #endif
    return true
}

extension Syscalls {
    /// The entries of a directory with what `lstat` says of each, without `.` and `..`:
    /// `fstatat` relative to the open directory, so no path is built per entry.
    /// A name that is not valid UTF-8 comes back as `nil` with a printable rendering (each bad
    /// byte as `\xNN`), so it can be reported but never confused with another name.
    static func directoryEntriesWithStatus(_ path: String) throws(Errno) -> [(name: String?, printable: String, status: FileStatus)] {
        guard let dir = opendir(path) else { throw Errno.current }
        defer { closedir(dir) }
        let fd = dirfd(dir)
        var result: [(name: String?, printable: String, status: FileStatus)] = []
        while let entry = readdir(dir) {
            let outcome: (String?, String, FileStatus)? = withUnsafePointer(to: &entry.pointee.d_name) { raw in
                raw.withMemoryRebound(to: CChar.self, capacity: 256) { name -> (String?, String, FileStatus)? in
                    if name[0] == 0x2e && (name[1] == 0 || (name[1] == 0x2e && name[2] == 0)) { return nil }
                    var st = Glibc_or_Darwin_stat_t()
                    while fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 {
                        if errno != EINTR { return nil }  // vanished meanwhile
                    }
                    let bytes = UnsafeRawBufferPointer(start: name, count: strlen(name))
                    if let valid = String(validating: bytes, as: UTF8.self) { return (valid, valid, FileStatus(st)) }
                    let printable = bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
                    return (nil, printable, FileStatus(st))
                }
            }
            if let outcome { result.append((name: outcome.0, printable: outcome.1, status: outcome.2)) }
        }
        return result
    }
}

extension Syscalls {
    enum EntryType { case directory, symbolicLinkOrUnknown, other }

    /// The entries of a directory with the type `readdir` reports (no `stat` per entry).
    static func directoryEntryTypes(_ path: String) throws(Errno) -> [(name: String, type: EntryType)] {
        guard let dir = opendir(path) else { throw Errno.current }
        defer { closedir(dir) }
        var result: [(name: String, type: EntryType)] = []
        while let entry = readdir(dir) {
            let type: EntryType = switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR): .directory
            case Int32(DT_LNK), Int32(DT_UNKNOWN): .symbolicLinkOrUnknown
            default: .other
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) { raw in
                raw.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            result.append((name: name, type: type))
        }
        return result
    }
}

extension Syscalls {
    /// The wall clock in nanoseconds (`CLOCK_REALTIME`), the clock file timestamps use.
    static func wallClockNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
