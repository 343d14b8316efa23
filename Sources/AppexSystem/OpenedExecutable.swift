// An executable opened once: hashed through its descriptor and executed from it, so the file that
// was checked is the file that runs, whatever its path names in between.
import CAppexSystem

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An executable file, open for reading.
package struct OpenedExecutable: Sendable {
    /// The descriptor (close-on-exec).
    package let descriptor: OwnedDescriptor
    /// The path it was opened by (for messages; never opened again).
    package let path: String
    /// What `fstat` said of the open file: its identity and times.
    package let status: FileStatus
    /// Whether it starts with `#!`: its interpreter reads it again as `/dev/fd/N`, so the
    /// descriptor must stay open over exec.
    package var isScript: Bool { interpreter != nil }
    /// A script's interpreter: the program its `#!` line names.
    package let interpreter: String?

    /// Opens `path` (no symbolic link at its last component) and checks it is a regular,
    /// executable file.
    package static func open(_ path: String) throws(SystemError) -> OpenedExecutable {
        let raw = try syscall("open(\(path))") { Glibc_or_Darwin_open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        let descriptor = OwnedDescriptor(taking: raw)
        let status = try fileStatus(of: descriptor, path: path)
        guard status.kind == .regular, status.isExecutable else {
            throw SystemError("open(\(path)): not an executable regular file", .permissionDenied)
        }
        var head = [UInt8](repeating: 0, count: 256)
        let read = head.withUnsafeMutableBytes { pread(raw, $0.baseAddress, 256, 0) }
        var interpreter: String?
        if read > 2 && head[0] == 0x23 && head[1] == 0x21 {
            let line = head[2..<read].prefix { $0 != 0x0a }
            let words = String(decoding: line, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" })
            interpreter = words.first.map(String.init)
        }
        return OpenedExecutable(descriptor: descriptor, path: path, status: status, interpreter: interpreter)
    }

    /// What `fstat` says of the open file now.
    package func currentStatus() throws(SystemError) -> FileStatus {
        try Self.fileStatus(of: descriptor, path: path)
    }

    /// Streams the open file's bytes, from its start, through `body`.
    package func readChunks(_ body: (UnsafeRawBufferPointer) -> Void) throws(SystemError) {
        try Syscalls.readChunks(descriptor: descriptor.rawValue, named: path, body)
    }

    /// Whether the file lies on a local file system whose files Linux write-denies while they
    /// run and whose change time every write sets, through a mapping too (ext2/3/4, XFS, Btrfs,
    /// F2FS). Not tmpfs (a page written through a shared mapping sets no time), a network or FUSE
    /// file system (whose server may change what is read without either), nor an overlay (whose
    /// lower files can be written beside it).
    package var isOnLocalFileSystem: Bool {
        let local: Set<Int64> = [0xEF53, 0x5846_5342, 0x9123_683E, 0xF2F5_2010]
        return local.contains(Int64(cappex_file_system_type(descriptor.rawValue)))
    }

    /// Whether the file cannot be opened for writing now because a process runs it (`ETXTBSY`),
    /// tried by opening it again, write-only, through `/proc/self/fd`. `false` when the open
    /// succeeds (the kernel does not write-deny it: closed at once) or fails otherwise (no
    /// permission to write it: nothing can be told).
    package var isWriteDenied: Bool {
        let path = "/proc/self/fd/\(descriptor.rawValue)"
        let writable = Glibc_or_Darwin_open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
        if writable >= 0 {
            close(writable)
            return false
        }
        return errno == ETXTBSY
    }

    private static func fileStatus(of descriptor: OwnedDescriptor, path: String) throws(SystemError) -> FileStatus {
        var st = Glibc_or_Darwin_stat_t()
        _ = try syscall("fstat(\(path))") { fstat(descriptor.rawValue, &st) }
        return FileStatus(st)
    }
}

private func Glibc_or_Darwin_open(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
