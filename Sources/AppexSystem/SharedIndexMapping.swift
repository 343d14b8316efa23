import Synchronization

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A SQLite WAL index (`-shm`) mapped read-only from a descriptor: how a sandboxed extension,
/// which cannot open the keychain's files, tells whether anything was committed since it cached
/// an answer. The header (commit counters and salts, no data) is all it reads.
package final class SharedIndexMapping: Sendable {
    private nonisolated(unsafe) let base: UnsafeRawPointer

    /// Maps the first page of `descriptor` (shared, read-only); `nil` when it cannot be mapped
    /// or is shorter than a header.
    package init?(descriptor: OwnedDescriptor) {
        var status = stat()
        guard fstat(descriptor.rawValue, &status) == 0, status.st_size >= 136 else { return nil }
        guard let mapped = mmap(nil, 4096, PROT_READ, MAP_SHARED, descriptor.rawValue, 0), mapped != MAP_FAILED else {
            return nil
        }
        base = UnsafeRawPointer(mapped)
    }

    /// The header's six words now, or `nil` while a commit is rewriting it.
    package func header() -> [UInt64]? {
        var words = [UInt64](repeating: 0, count: 6)
        let agreed = words.withUnsafeMutableBufferPointer { WALIndexHeader.read(base, into: $0.baseAddress!) }
        return agreed ? words : nil
    }
}

/// The keychain's WAL index, opened read-only once per process and never closed: closing any
/// descriptor of a file drops every POSIX lock this process holds on it, SQLite's included.
package enum KeychainIndexFile {
    private static let opened = Mutex<[String: OwnedDescriptor]>([:])

    /// A descriptor of `path` (the keychain's `-shm`), opened once; `nil` while it does not exist.
    package static func descriptor(_ path: String) -> OwnedDescriptor? {
        opened.withLock { opened in
            if let descriptor = opened[path] { return descriptor }
            let raw = open(path, O_RDONLY | O_CLOEXEC)
            guard raw >= 0 else { return nil }
            let descriptor = OwnedDescriptor(taking: raw)
            opened[path] = descriptor
            return descriptor
        }
    }
}
