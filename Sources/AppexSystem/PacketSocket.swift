package import AppexVocabulary
import CAppexSystem

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One end of a `SOCK_SEQPACKET` socket pair: whole messages, each with the kernel's word on who
/// sent it (when attested). The keychain broker speaks over one: a request is checked against its
/// own sender, so bytes interleaved by another holder of the descriptor cannot pass as the
/// extension's.
package final class PacketSocket: Sendable {
    /// The descriptor.
    package let descriptor: OwnedDescriptor

    /// The largest message either side sends (the pair's buffers are made at least this large).
    package static let messageLimit = 1 << 20

    private init(_ descriptor: OwnedDescriptor) { self.descriptor = descriptor }

    /// Takes over `descriptor` (an inherited end).
    package init(adopting descriptor: OwnedDescriptor) { self.descriptor = descriptor }

    /// A connected pair; the first end attests every sender (`SO_PASSCRED`).
    package static func pair() throws(SystemError) -> (attesting: PacketSocket, other: PacketSocket) {
        var fds: [Int32] = [-1, -1]
        _ = try syscall("socketpair(SOCK_SEQPACKET)") {
            cappex_socketpair_cloexec(Int32(SOCK_SEQPACKET.rawValue), &fds)
        }
        let first = OwnedDescriptor(taking: fds[0])
        let second = OwnedDescriptor(taking: fds[1])
        for fd in [fds[0], fds[1]] {
            var size = Int32(messageLimit + 4096)
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        _ = try syscall("setsockopt(SO_PASSCRED)") { cappex_set_pass_credentials(fds[0], 1) }
        return (PacketSocket(first), PacketSocket(second))
    }

    /// Sends one message.
    package func send(_ bytes: [UInt8]) throws(SystemError) {
        _ = try syscall("send") {
            bytes.withUnsafeBytes { Glibc_or_Darwin_send(descriptor.rawValue, $0.baseAddress, $0.count) }
        }
    }

    /// A received message and who sent it.
    package struct Message: Sendable {
        package var bytes: [UInt8]
        /// The sender, as the kernel attests it; `nil` when the socket does not attest.
        package var sender: PeerCredentials?
        /// Whether it was longer than the limit (then `bytes` holds only its start).
        package var truncated: Bool
    }

    /// Receives one message (`nil` at the end); waits unless `waiting` is false (then `nil`
    /// with nothing waiting is reported as `EAGAIN`).
    package func receive(waiting: Bool = true) throws(SystemError) -> Message? {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        var attested: Int32 = 0
        var truncated: Int32 = 0
        var failure: SystemError?
        // Uninitialised: only what the kernel writes is kept (no 1 MiB of zeroes a message).
        let buffer = [UInt8](unsafeUninitializedCapacity: Self.messageLimit) { storage, initialized in
            do throws(SystemError) {
                let received = try syscall("recvmsg") {
                    cappex_receive_packet(
                        descriptor.rawValue,
                        storage.baseAddress,
                        storage.count,
                        waiting ? 0 : 1,
                        &pid,
                        &uid,
                        &gid,
                        &attested,
                        &truncated
                    )
                }
                initialized = min(received, storage.count)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        let count = buffer.count
        if count == 0 { return nil }
        return Message(
            bytes: buffer,
            sender: attested != 0
                ? PeerCredentials(processIdentifier: pid, userIdentifier: uid, groupIdentifier: gid) : nil,
            truncated: truncated != 0
        )
    }

    /// Shuts both directions down: a blocked receive returns the end.
    package func shutdown() { _ = Glibc_or_Darwin_shutdown(descriptor.rawValue) }
}

private func Glibc_or_Darwin_send(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    send(fd, bytes, count, Int32(MSG_NOSIGNAL))
}

private func Glibc_or_Darwin_shutdown(_ fd: Int32) -> Int32 { shutdown(fd, Int32(SHUT_RDWR)) }
