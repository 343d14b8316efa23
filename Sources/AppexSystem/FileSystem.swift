import SystemPackage

// Files and directories: stat, directory entries, whole-file reads and atomic writes, modes.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `lstat` says about one directory entry, reduced to what Appex needs.
package struct FileStatus: Hashable, Sendable {
    package enum Kind: Hashable, Sendable { case regular, directory, symbolicLink, other }
    package var kind: Kind
    package var size: Int64
    package var isExecutable: Bool
    package var device: UInt64
    package var inode: UInt64
    package var modificationNanoseconds: Int64
    package var changeNanoseconds: Int64
}

package enum Syscalls {
    /// `lstat(2)`, retried on `EINTR`.
    package static func lstat(_ path: String) throws(SystemError) -> FileStatus {
        var st = Glibc_or_Darwin_stat_t()
        _ = try syscall("lstat") { Glibc_or_Darwin_lstat(path, &st) }
        return FileStatus(st)
    }

    /// `unlink(2)`: removes the file at `path`.
    package static func removeFile(_ path: String) throws(SystemError) {
        _ = try syscall("unlink(\(path))") { unlink(path) }
    }

    /// `realpath(3)`: the path with every symbolic link and `.`/`..` resolved.
    package static func realPath(_ path: String) throws(SystemError) -> String {
        guard let resolved = realpath(path, nil) else { throw SystemError("realpath(\(path))", .current) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `stat(2)` (follows links), retried on `EINTR`.
    package static func stat(_ path: String) throws(SystemError) -> FileStatus {
        var st = Glibc_or_Darwin_stat_t()
        _ = try syscall("stat") { Glibc_or_Darwin_stat(path, &st) }
        return FileStatus(st)
    }

    /// The names in a directory, without `.` and `..`, unsorted.
    package static func directoryEntries(_ path: String) throws(SystemError) -> [String] {
        guard let dir = opendir(path) else { throw SystemError("opendir", .current) }
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
    package static func readLink(_ path: String) throws(SystemError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try syscall("readlink") { readlink(path, &buffer, buffer.count - 1) }
        guard let target = String(validating: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) else {
            throw SystemError("readlink (the target is not UTF-8)", .illegalByteSequence)
        }
        return target
    }

    /// Reads a whole file; `limit` bounds what an untrusted file may make us allocate.
    package static func readFile(_ path: String, limit: Int) throws(SystemError) -> [UInt8] {
        let fd = try syscall("open") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = try syscall("read") { chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
            if result.count > limit {
                throw SystemError("read (the file is larger than \(limit) bytes)", .fileTooLarge)
            }
        }
        return result
    }

    /// Writes a whole file through a temporary name and `rename(2)`, so readers see the old
    /// contents or the new, never a torn file. `mode` applies to the new file.
    package static func writeFileAtomically(_ path: String, bytes: [UInt8], mode: UInt32) throws(SystemError) {
        let temporary = path + ".tmp-\(getpid())"
        do throws(SystemError) {
            try writeNewFile(temporary, bytes: bytes, mode: mode, exclusive: false)
            _ = try syscall("rename") { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Writes `bytes` to a new file at `path` with exactly `mode` (whatever the umask), synced
    /// to disk before it returns; `exclusive`: fails with `EEXIST` if the file exists.
    package static func writeNewFile(_ path: String, bytes: [UInt8], mode: UInt32, exclusive: Bool) throws(SystemError)
    {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC)
        let fd = try syscall("open") { open(path, flags, mode_t(mode)) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            offset += try syscall("write") { bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        }
        _ = try syscall("fchmod") { fchmod(fd, mode_t(mode)) }
        _ = try syscall("fsync") { fsync(fd) }
    }

    /// Appends `bytes` to the file at `path` (made with `mode` if missing) in one `O_APPEND`
    /// write, so concurrent appenders never interleave within a record. Not synced: for caches,
    /// whose lost tail is only work to redo.
    package static func append(_ bytes: [UInt8], toFile path: String, mode: UInt32) throws(SystemError) {
        let fd = try syscall("open") { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode_t(mode)) }
        defer { close(fd) }
        let written = try syscall("write") { bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        if written != bytes.count {
            throw SystemError("write (\(written) of \(bytes.count) bytes appended)", .ioError)
        }
    }

    /// Writes `bytes` to a temporary file beside `path` and `link(2)`s it there: exactly one of
    /// several racing writers creates `path`, whole and synced (its directory too), and every
    /// later one finds it there.
    ///
    /// - Returns: `true` when this call created `path`; `false` when it existed already.
    package static func createFileAtomically(_ path: String, bytes: [UInt8], mode: UInt32) throws(SystemError) -> Bool {
        let temporary = path + ".new-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        defer { unlink(temporary) }
        try writeNewFile(temporary, bytes: bytes, mode: mode, exclusive: true)
        let created: Bool
        do {
            _ = try syscall("link") { link(temporary, path) }
            created = true
        } catch  where error.errno == .fileExists {
            created = false
        }
        // The directory entry must outlive a crash as the contents do.
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        if let fd = try? syscall(
            "open(directory)",
            { open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        ) {
            _ = fsync(fd)
            close(fd)
        }
        return created
    }

    /// Creates a directory and its parents with `mode`; existing directories are left alone.
    ///
    /// One `mkdir` when the directory exists already or only it is missing (every launch makes
    /// its extension's directories): the parents are made only when the kernel says one is
    /// missing. Each `mkdir` locks its parent directory, which launches at once all share.
    package static func makeDirectories(_ path: String, mode: UInt32) throws(SystemError) {
        do {
            _ = try syscall("mkdir") { mkdir(path, mode_t(mode)) }
            return
        } catch  where error.errno == .fileExists {
            return
        } catch  where error.errno == .noSuchFileOrDirectory {
            // A parent is missing: make them all, in order.
        }
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            do { _ = try syscall("mkdir") { mkdir(current, mode_t(mode)) } } catch  where error.errno == .fileExists {}
        }
    }

    /// Sets a file's permission bits.
    package static func changeMode(_ path: String, _ mode: UInt32) throws(SystemError) {
        _ = try syscall("chmod") { chmod(path, mode_t(mode)) }
    }

    /// Creates an empty file with `mode` if none exists yet.
    ///
    /// Never opens an existing file: closing any descriptor of a file drops every POSIX lock the
    /// process holds on it, which would silently drop the locks of a SQLite connection this
    /// process has open on that file (the corruption SQLite's manual warns of).
    package static func createFileIfMissing(_ path: String, mode: UInt32) throws(SystemError) {
        if access(path, F_OK) == 0 { return }
        do {
            #if os(Linux)
            // mknod makes the file without opening it, so not even a racing opener's locks can be dropped.
            _ = try syscall("mknod") { mknod(path, S_IFREG | mode_t(mode), 0) }
            #else
            close(try syscall("open") { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode)) })
            #endif
        } catch  where error.errno == .fileExists {}
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
    package static func readChunks(_ path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(SystemError) {
        let fd = try syscall("open") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        try readChunks(descriptor: fd, named: path, body)
    }

    /// Streams the bytes of the open file `descriptor` from its start (`pread`: its offset is
    /// left alone) through `body`; `name` is for errors.
    package static func readChunks(
        descriptor fd: Int32,
        named name: String,
        _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(SystemError) {
        let size = 256 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        while true {
            let n = try syscall("read(\(name))") { pread(fd, buffer.baseAddress, size, offset) }
            if n == 0 { return }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += off_t(n)
        }
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

extension Syscalls {
    /// The entries of a directory with what `lstat` says of each, without `.` and `..`:
    /// `fstatat` relative to the open directory, so no path is built per entry.
    /// A name that is not valid UTF-8 comes back as `nil` with a printable rendering (each bad
    /// byte as `\xNN`), so it can be reported but never confused with another name.
    package static func directoryEntriesWithStatus(
        _ path: String
    ) throws(SystemError) -> [(name: String?, printable: String, status: FileStatus)] {
        guard let dir = opendir(path) else { throw SystemError("opendir", .current) }
        defer { closedir(dir) }
        let fd = dirfd(dir)
        var result: [(name: String?, printable: String, status: FileStatus)] = []
        while let entry = readdir(dir) {
            let outcome: (String?, String, FileStatus)? = withUnsafePointer(to: &entry.pointee.d_name) { raw in
                raw.withMemoryRebound(to: CChar.self, capacity: 256) { name -> (String?, String, FileStatus)? in
                    if name[0] == 0x2e && (name[1] == 0 || (name[1] == 0x2e && name[2] == 0)) { return nil }
                    var st = Glibc_or_Darwin_stat_t()
                    // An entry that vanished meanwhile is left out.
                    guard (try? syscall("fstatat", { fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) })) != nil else {
                        return nil
                    }
                    let bytes = UnsafeRawBufferPointer(start: name, count: strlen(name))
                    if let valid = String(validating: bytes, as: UTF8.self) { return (valid, valid, FileStatus(st)) }
                    let printable = bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }
                        .joined()
                    return (nil, printable, FileStatus(st))
                }
            }
            if let outcome { result.append((name: outcome.0, printable: outcome.1, status: outcome.2)) }
        }
        return result
    }
}

extension Syscalls {
    package enum EntryType { case directory, symbolicLinkOrUnknown, other }

    /// The entries of a directory with the type `readdir` reports (no `stat` per entry).
    package static func directoryEntryTypes(_ path: String) throws(SystemError) -> [(name: String, type: EntryType)] {
        guard let dir = opendir(path) else { throw SystemError("opendir", .current) }
        defer { closedir(dir) }
        var result: [(name: String, type: EntryType)] = []
        while let entry = readdir(dir) {
            let type: EntryType =
                switch Int32(entry.pointee.d_type) {
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
    package static func wallClockNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
