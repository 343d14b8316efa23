// Unix sockets, descriptor passing, kernel-attested credentials, poll, self-pipes and sealed
// shared memory: the socket layer AppexIPC's wire stands on.
package import AppexVocabulary
import CAppexSystem
import SystemPackage

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

package enum Socket {
    /// A connected pair of stream sockets, both close-on-exec.
    package static func pair() throws(SystemError) -> (OwnedDescriptor, OwnedDescriptor) {
        var fds: [Int32] = [-1, -1]
        _ = try syscall("socketpair") { cappex_socketpair_cloexec(Int32(SOCK_STREAM.rawValue), &fds) }
        return (OwnedDescriptor(taking: fds[0]), OwnedDescriptor(taking: fds[1]))
    }

    /// Sends all of `bytes`; descriptors travel with the first chunk.
    package static func send(_ socket: Int32, _ bytes: UnsafeRawBufferPointer, descriptors: [Int32]) throws(SystemError)
    {
        var offset = 0
        var pending = descriptors
        while offset < bytes.count || !pending.isEmpty {
            let sent = try syscall("sendmsg") {
                cappex_send_with_fds(
                    socket,
                    bytes.baseAddress.map { $0 + offset },
                    bytes.count - offset,
                    pending,
                    Int32(pending.count)
                )
            }
            pending = []
            offset += sent
        }
    }

    /// Sends what the socket takes now, without blocking; descriptors travel with the first byte.
    /// - Returns: the bytes sent; 0 when the socket's buffer is full.
    package static func trySend(
        _ socket: Int32,
        _ bytes: UnsafeRawBufferPointer,
        descriptors: [Int32]
    ) throws(SystemError) -> Int {
        do {
            return try syscall("sendmsg") {
                cappex_try_send_with_fds(socket, bytes.baseAddress, bytes.count, descriptors, Int32(descriptors.count))
            }
        } catch  where error.errno == .resourceTemporarilyUnavailable || error.errno == .wouldBlock {
            return 0
        }
    }

    /// Reads what is available (at most `buffer.count` bytes), collecting passed descriptors;
    /// waits until something is.
    /// - Returns: the bytes read; 0 at end of stream.
    package static func receive(
        _ socket: Int32,
        into buffer: UnsafeMutableRawBufferPointer,
        descriptors: inout [OwnedDescriptor]
    ) throws(SystemError) -> Int {
        try receive(socket, into: buffer, descriptors: &descriptors, waiting: true)
    }

    /// Reads what is available, as ``receive(_:into:descriptors:)``, without waiting.
    /// - Returns: the bytes read; 0 at end of stream; `nil` when nothing waits.
    package static func receiveIfAvailable(
        _ socket: Int32,
        into buffer: UnsafeMutableRawBufferPointer,
        descriptors: inout [OwnedDescriptor]
    ) throws(SystemError) -> Int? {
        do throws(SystemError) {
            return try receive(socket, into: buffer, descriptors: &descriptors, waiting: false)
        } catch  where error.errno == .resourceTemporarilyUnavailable || error.errno == .wouldBlock {
            return nil
        }
    }

    private static func receive(
        _ socket: Int32,
        into buffer: UnsafeMutableRawBufferPointer,
        descriptors: inout [OwnedDescriptor],
        waiting: Bool
    ) throws(SystemError) -> Int {
        try withUnsafeTemporaryAllocation(of: Int32.self, capacity: 16) { fds throws(SystemError) -> Int in
            var count: Int32 = 0
            var truncated: Int32 = 0
            let received = try syscall("recvmsg") {
                cappex_receive_with_fds(
                    socket,
                    buffer.baseAddress,
                    buffer.count,
                    fds.baseAddress,
                    16,
                    &count,
                    &truncated,
                    waiting ? 0 : 1
                )
            }
            for index in 0..<Int(count) { descriptors.append(OwnedDescriptor(taking: fds[index])) }
            if truncated != 0 { throw SystemError("recvmsg (descriptors truncated)", .messageTooLong) }
            return received
        }
    }

    /// The peer's credentials.
    package static func peerCredentials(_ socket: Int32) throws(SystemError) -> PeerCredentials {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        _ = try syscall("getsockopt(SO_PEERCRED)") { cappex_peer_credentials(socket, &pid, &uid, &gid) }
        return PeerCredentials(processIdentifier: pid, userIdentifier: uid, groupIdentifier: gid)
    }

    /// Makes the kernel attach every sender's credentials to what arrives on `socket` (or stops).
    package static func passCredentials(_ socket: Int32, _ on: Bool) throws(SystemError) {
        _ = try syscall("setsockopt(SO_PASSCRED)") { cappex_set_pass_credentials(socket, on ? 1 : 0) }
    }

    /// The kernel-attested credentials of the next message's sender, without consuming it;
    /// `nil` when the message carries none (or the stream ended).
    package static func peekSenderCredentials(_ socket: Int32) throws(SystemError) -> PeerCredentials? {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        let outcome: Int32
        do {
            outcome = try syscall("recvmsg(MSG_PEEK, SCM_CREDENTIALS)") {
                cappex_peek_sender_credentials(socket, &pid, &uid, &gid)
            }
        } catch  where error.errno == .connectionReset {
            return nil  // the peer is gone: nothing to attest
        }
        switch outcome {
        case 0: return PeerCredentials(processIdentifier: pid, userIdentifier: uid, groupIdentifier: gid)
        case 1: return nil
        default: throw SystemError("recvmsg(MSG_PEEK): bytes without the kernel's credentials", .protocolError)
        }
    }

    /// How many bytes wait to be read on `socket`.
    package static func bytesAvailable(_ socket: Int32) throws(SystemError) -> Int {
        Int(try syscall("ioctl(FIONREAD)") { cappex_bytes_available(socket) })
    }

    /// Copies waiting bytes of `socket` into `buffer` without consuming them or waiting.
    /// - Returns: how many (0 at end of stream); `nil` when none waits.
    package static func peek(_ socket: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        do throws(SystemError) {
            return try syscall("recv(MSG_PEEK)") { cappex_peek(socket, buffer.baseAddress, buffer.count) }
        } catch  where error.errno == .resourceTemporarilyUnavailable || error.errno == .wouldBlock {
            return nil
        }
    }

    /// Waits until `socket` is readable (data or end of stream). - Returns: `false` on timeout.
    package static func waitReadable(_ socket: Int32, timeoutMilliseconds: Int32) throws(SystemError) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return try syscall("poll") { poll(&descriptor, 1, timeoutMilliseconds) } > 0
    }

    /// Waits until one of `descriptors` is readable (or closed); marks each in `ready`.
    package static func waitReadable(
        _ descriptors: [Int32],
        ready: inout [Bool],
        timeoutMilliseconds: Int32 = -1
    ) throws(SystemError) {
        let count = descriptors.count
        try withUnsafeTemporaryAllocation(of: pollfd.self, capacity: count) { entries throws(SystemError) in
            for index in 0..<count {
                entries[index] = pollfd(fd: descriptors[index], events: Int16(POLLIN), revents: 0)
            }
            _ = try syscall("poll") { poll(entries.baseAddress, nfds_t(count), timeoutMilliseconds) }
            ready.removeAll(keepingCapacity: true)
            for index in 0..<count { ready.append(entries[index].revents != 0) }
        }
    }

    /// Shuts both directions down, waking a blocked reader on this or the other end.
    package static func shutdownBoth(_ socket: Int32) {
        _ = Glibc.shutdown(socket, Int32(SHUT_RDWR))
    }
}

/// A self-pipe that wakes a thread blocked in `poll`.
package final class WakePipe: Sendable {
    package let readEnd: OwnedDescriptor
    package let writeEnd: OwnedDescriptor

    package init() throws(SystemError) {
        (readEnd, writeEnd) = try Pipe.make(nonblocking: true)
    }

    /// Makes the read end readable (a full pipe is readable already).
    package func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd.rawValue, &byte, 1)
    }

    /// Empties the pipe.
    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd.rawValue, &buffer, buffer.count) > 0 {}
    }
}

/// Pipes.
package enum Pipe {
    /// A pipe, both ends close-on-exec; `nonblocking` for both ends.
    package static func make(
        nonblocking: Bool = false
    ) throws(SystemError) -> (read: OwnedDescriptor, write: OwnedDescriptor) {
        var fds: [Int32] = [-1, -1]
        _ = try syscall("pipe2") { cappex_pipe_cloexec(&fds, nonblocking ? 1 : 0) }
        return (OwnedDescriptor(taking: fds[0]), OwnedDescriptor(taking: fds[1]))
    }

    /// Reads what is there now (at most `buffer.count` bytes) from a descriptor.
    /// - Returns: the bytes read; 0 at end of file; `nil` when nothing is there (non-blocking).
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        do {
            return try syscall("read") { Glibc_or_Darwin_read(fd, buffer.baseAddress, buffer.count) }
        } catch  where error.errno == .resourceTemporarilyUnavailable || error.errno == .wouldBlock {
            return nil
        }
    }
}

private func Glibc_or_Darwin_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// Shared-memory payloads: a sealed `memfd` that the receiver maps read-only.
package enum SharedMemory {
    /// A sealed memfd holding `bytes`.
    package static func make(_ bytes: UnsafeRawBufferPointer, name: String) throws(SystemError) -> OwnedDescriptor {
        let fd = OwnedDescriptor(taking: try syscall("memfd_create") { cappex_memfd_create(name) })
        // All pages at once, rather than one fault per page as they are written.
        _ = try syscall("fallocate(memfd)") { cappex_allocate(fd.rawValue, bytes.count) }
        var offset = 0
        while offset < bytes.count {
            offset += try syscall("pwrite(memfd)") {
                pwrite(fd.rawValue, bytes.baseAddress! + offset, bytes.count - offset, off_t(offset))
            }
        }
        _ = try syscall("fcntl(F_ADD_SEALS)") { cappex_memfd_seal_all(fd.rawValue) }
        return fd
    }

    /// Why a received memfd may not be mapped.
    package enum Refusal: Error {
        /// The sender could still change it: not sealed against shrinking, growing and writing.
        case notSealed
        /// Its size is not what its frame announced.
        case sizeMismatch(actual: Int)
        /// The mapping itself failed.
        case system(SystemError)
    }

    /// Maps a sealed memfd of exactly `length` bytes read-only (faulted in at once); refuses an
    /// unsealed one (the sender could still change it under us) or one of another size.
    /// - Returns: the mapping (`munmap` it with ``unmap(_:)``); an empty buffer for length 0.
    package static func mapSealed(_ fd: Int32, length: Int) throws(Refusal) -> UnsafeRawBufferPointer {
        let seals = cappex_memfd_seals(fd)
        let required: Int32 = 0x0002 | 0x0004 | 0x0008  // F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE
        guard seals >= 0, seals & required == required else { throw .notSealed }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .system(SystemError("fstat", .current)) }
        guard Int(status.st_size) == length else { throw .sizeMismatch(actual: Int(status.st_size)) }
        guard length > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0), mapping != MAP_FAILED else {
            throw .system(SystemError("mmap", .current))
        }
        return UnsafeRawBufferPointer(start: mapping, count: length)
    }

    /// Unmaps what ``mapSealed(_:length:)`` mapped.
    package static func unmap(_ buffer: UnsafeRawBufferPointer) {
        if let base = buffer.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), buffer.count) }
    }

    /// Asks the kernel to fault in `buffer`'s pages for writing in one call (where it can).
    package static func populate(_ buffer: UnsafeMutableRawBufferPointer) {
        if let base = buffer.baseAddress { cappex_populate(base, buffer.count) }
    }
}

/// Private, writable memory of this process, faulted in at once (`mmap` with `MAP_POPULATE`):
/// where a large received payload is read, so the copy out of the socket does not also pay a
/// page fault per page.
package enum AnonymousMemory {
    /// `length` bytes (rounded up to whole pages), readable and writable.
    package static func allocate(_ length: Int) throws(SystemError) -> UnsafeMutableRawBufferPointer {
        guard
            let mapping = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0),
            mapping != MAP_FAILED
        else { throw SystemError("mmap(anonymous)", .current) }
        return UnsafeMutableRawBufferPointer(start: mapping, count: length)
    }
}
