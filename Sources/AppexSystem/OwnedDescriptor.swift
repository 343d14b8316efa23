package import SystemPackage

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A descriptor this process owns: closed when the last reference goes.
///
/// swift-system's `FileDescriptor` is a plain value that closes nothing; Appex's plumbing passes
/// descriptors between threads and frames, and a descriptor dropped on an error path must still
/// be closed. Public API speaks `FileDescriptor`; this box is how the modules hold one.
package final class OwnedDescriptor: Sendable, CustomStringConvertible {
    /// The descriptor.
    package let descriptor: FileDescriptor

    /// Takes ownership of `descriptor`.
    package init(taking descriptor: FileDescriptor) { self.descriptor = descriptor }

    /// Takes ownership of the raw descriptor `rawValue`.
    package convenience init(taking rawValue: CInt) { self.init(taking: FileDescriptor(rawValue: rawValue)) }

    deinit { _ = Glibc_or_Darwin_close(descriptor.rawValue) }

    /// The raw descriptor, for C calls.
    package var rawValue: CInt { descriptor.rawValue }

    package var description: String { "fd \(descriptor.rawValue)" }
}

private func Glibc_or_Darwin_close(_ fd: CInt) -> CInt { close(fd) }
