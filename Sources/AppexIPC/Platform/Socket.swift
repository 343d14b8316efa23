// The socket and descriptor layer of AppexIPC: the one file that calls the C library for it.
import CAppexSystem
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, named, with its `errno`.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call that failed (`sendmsg`, `recvmsg`, ...).
    public let call: String
    /// The `errno` it set.
    public let errno: Int32

    public var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// An owned file descriptor, closed when the last reference goes.
public final class FileDescriptor: Sendable, CustomStringConvertible {
    /// The raw descriptor.
    public let rawValue: Int32

    /// Takes ownership of `rawValue`.
    public init(taking rawValue: Int32) { self.rawValue = rawValue }

    deinit { close(rawValue) }

    public var description: String { "fd \(rawValue)" }
}

/// Who is at the other end of a Unix socket, as the kernel says (`SO_PEERCRED`).
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    /// The peer's process id at the time it connected (or the socket pair was made).
    public let processIdentifier: Int32
    /// The peer's user id.
    public let userIdentifier: UInt32
    /// The peer's group id.
    public let groupIdentifier: UInt32

    public var description: String { "pid \(processIdentifier), uid \(userIdentifier)" }
}

package enum Socket {
    /// A connected pair of stream sockets, both close-on-exec.
    package static func pair() throws(SystemCallError) -> (FileDescriptor, FileDescriptor) {
        var fds: [Int32] = [-1, -1]
        guard cappex_socketpair_cloexec(Int32(SOCK_STREAM.rawValue), &fds) == 0 else {
            throw SystemCallError(call: "socketpair", errno: errno)
        }
        return (FileDescriptor(taking: fds[0]), FileDescriptor(taking: fds[1]))
    }

    /// Sends all of `bytes`; descriptors travel with the first chunk.
    static func send(_ socket: Int32, _ bytes: UnsafeRawBufferPointer, descriptors: [Int32]) throws(SystemCallError) {
        var offset = 0
        var pending = descriptors
        while offset < bytes.count || !pending.isEmpty {
            let sent = cappex_send_with_fds(socket, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, pending, Int32(pending.count))
            if sent < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call: "sendmsg", errno: errno)
            }
            pending = []
            offset += sent
        }
    }

    /// Sends what the socket takes now, without blocking; descriptors travel with the first byte.
    /// - Returns: the bytes sent; 0 when the socket's buffer is full.
    static func trySend(_ socket: Int32, _ bytes: UnsafeRawBufferPointer, descriptors: [Int32]) throws(SystemCallError) -> Int {
        while true {
            let sent = cappex_try_send_with_fds(socket, bytes.baseAddress, bytes.count, descriptors, Int32(descriptors.count))
            if sent >= 0 { return sent }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw SystemCallError(call: "sendmsg", errno: errno)
        }
    }

    /// Reads what is available (at most `buffer.count` bytes), collecting passed descriptors.
    /// - Returns: the bytes read; 0 at end of stream.
    static func receive(_ socket: Int32, into buffer: UnsafeMutableRawBufferPointer, descriptors: inout [FileDescriptor]) throws(SystemCallError) -> Int {
        try withUnsafeTemporaryAllocation(of: Int32.self, capacity: 16) { fds throws(SystemCallError) -> Int in
            var count: Int32 = 0
            var truncated: Int32 = 0
            while true {
                let received = cappex_receive_with_fds(socket, buffer.baseAddress, buffer.count, fds.baseAddress, 16, &count, &truncated)
                if received < 0 {
                    if errno == EINTR { continue }
                    throw SystemCallError(call: "recvmsg", errno: errno)
                }
                for index in 0..<Int(count) { descriptors.append(FileDescriptor(taking: fds[index])) }
                if truncated != 0 { throw SystemCallError(call: "recvmsg (descriptors truncated)", errno: EMSGSIZE) }
                return received
            }
        }
    }

    /// The peer's credentials.
    static func peerCredentials(_ socket: Int32) throws(SystemCallError) -> PeerCredentials {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard cappex_peer_credentials(socket, &pid, &uid, &gid) == 0 else {
            throw SystemCallError(call: "getsockopt(SO_PEERCRED)", errno: errno)
        }
        return PeerCredentials(processIdentifier: pid, userIdentifier: uid, groupIdentifier: gid)
    }

    /// Makes the kernel attach every sender's credentials to what arrives on `socket` (or stops).
    static func passCredentials(_ socket: Int32, _ on: Bool) throws(SystemCallError) {
        guard cappex_set_pass_credentials(socket, on ? 1 : 0) == 0 else {
            throw SystemCallError(call: "setsockopt(SO_PASSCRED)", errno: errno)
        }
    }

    /// The kernel-attested credentials of the next message's sender, without consuming it;
    /// `nil` when the message carries none (or the stream ended).
    static func peekSenderCredentials(_ socket: Int32) throws(SystemCallError) -> PeerCredentials? {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        switch cappex_peek_sender_credentials(socket, &pid, &uid, &gid) {
        case 0: return PeerCredentials(processIdentifier: pid, userIdentifier: uid, groupIdentifier: gid)
        case 1: return nil
        case 2: throw SystemCallError(call: "recvmsg(MSG_PEEK): bytes without the kernel's credentials", errno: EPROTO)
        default:
            if errno == ECONNRESET { return nil }  // the peer is gone: nothing to attest
            throw SystemCallError(call: "recvmsg(MSG_PEEK, SCM_CREDENTIALS)", errno: errno)
        }
    }

    /// Waits until `socket` is readable (data or end of stream). - Returns: `false` on timeout.
    static func waitReadable(_ socket: Int32, timeoutMilliseconds: Int32) throws(SystemCallError) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, timeoutMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call: "poll", errno: errno)
            }
            return ready > 0
        }
    }

    /// Waits until one of `descriptors` is readable (or closed); marks each in `ready`.
    static func waitReadable(_ descriptors: [Int32], ready: inout [Bool]) throws(SystemCallError) {
        let count = descriptors.count
        let failure = withUnsafeTemporaryAllocation(of: pollfd.self, capacity: count) { entries -> Int32 in
            for index in 0..<count { entries[index] = pollfd(fd: descriptors[index], events: Int16(POLLIN), revents: 0) }
            while true {
                if poll(entries.baseAddress, nfds_t(count), -1) >= 0 { break }
                if errno != EINTR { return errno }
            }
            ready.removeAll(keepingCapacity: true)
            for index in 0..<count { ready.append(entries[index].revents != 0) }
            return 0
        }
        if failure != 0 { throw SystemCallError(call: "poll", errno: failure) }
    }

    /// Shuts both directions down, waking a blocked reader on this or the other end.
    static func shutdownBoth(_ socket: Int32) {
        _ = Glibc.shutdown(socket, Int32(SHUT_RDWR))
    }
}

/// A self-pipe that wakes a thread blocked in `poll`.
final class WakePipe: Sendable {
    let readEnd: FileDescriptor
    let writeEnd: FileDescriptor

    init() throws(SystemCallError) {
        var fds: [Int32] = [-1, -1]
        guard cappex_pipe_cloexec(&fds, 1) == 0 else { throw SystemCallError(call: "pipe2", errno: errno) }
        readEnd = FileDescriptor(taking: fds[0])
        writeEnd = FileDescriptor(taking: fds[1])
    }

    /// Makes the read end readable (a full pipe is readable already).
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd.rawValue, &byte, 1)
    }

    /// Empties the pipe.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd.rawValue, &buffer, buffer.count) > 0 {}
    }
}

/// Shared-memory payloads: a sealed `memfd` that the receiver maps read-only.
enum SharedMemory {
    /// A sealed memfd holding `bytes`.
    static func make(_ bytes: UnsafeRawBufferPointer, name: String) throws(SystemCallError) -> FileDescriptor {
        let raw = cappex_memfd_create(name)
        guard raw >= 0 else { throw SystemCallError(call: "memfd_create", errno: errno) }
        let fd = FileDescriptor(taking: raw)
        // All pages at once, rather than one fault per page as they are written.
        guard cappex_allocate(raw, bytes.count) == 0 else { throw SystemCallError(call: "fallocate(memfd)", errno: errno) }
        var offset = 0
        while offset < bytes.count {
            let written = pwrite(raw, bytes.baseAddress! + offset, bytes.count - offset, off_t(offset))
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call: "pwrite(memfd)", errno: errno)
            }
            offset += written
        }
        guard cappex_memfd_seal_all(raw) == 0 else { throw SystemCallError(call: "fcntl(F_ADD_SEALS)", errno: errno) }
        return fd
    }

    /// Maps a sealed memfd of exactly `length` bytes read-only (faulted in at once); refuses an
    /// unsealed one (the sender could still change it under us) or one of another size.
    static func map(_ fd: FileDescriptor, length: Int, keepingDescriptor: Bool = false) throws(IPCError) -> Payload {
        let seals = cappex_memfd_seals(fd.rawValue)
        let required: Int32 = 0x0002 | 0x0004 | 0x0008  // F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE
        guard seals >= 0, seals & required == required else {
            throw IPCError(.protocolViolation, "a shared-memory payload was not sealed against change")
        }
        var status = stat()
        guard fstat(fd.rawValue, &status) == 0, Int(status.st_size) == length else {
            throw IPCError(.protocolViolation, "a shared-memory payload's size does not match its frame (\(length) bytes announced)")
        }
        guard length > 0 else { return Payload([]) }
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED | MAP_POPULATE, fd.rawValue, 0), mapping != MAP_FAILED else {
            throw IPCError(.system, "mmap of a shared-memory payload failed: errno \(errno)")
        }
        return Payload(mapped: MappedMemory(buffer: UnsafeRawBufferPointer(start: mapping, count: length), descriptor: keepingDescriptor ? fd : nil))
    }

}
