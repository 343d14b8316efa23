#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP listener on `127.0.0.1` at a port the kernel picks (RFC 8252 §7.3's loopback redirect).
package final class LoopbackListener: Sendable {
    /// The port the kernel chose.
    package let port: Int
    private let socket: OwnedDescriptor

    /// Listens on 127.0.0.1, on an ephemeral port.
    package init() throws(SystemError) {
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        let fd = OwnedDescriptor(taking: try syscall("socket") { Glibc_or_Darwin_socket(AF_INET, type, 0) })
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(SystemError) in
                _ = try syscall("bind(127.0.0.1)") { bind(fd.rawValue, generic, length) }
                _ = try syscall("listen") { listen(fd.rawValue, 4) }
                _ = try syscall("getsockname") { getsockname(fd.rawValue, generic, &length) }
            }
        }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// The next connection, or `nil` when none came within `timeoutMilliseconds`.
    package func accept(timeoutMilliseconds: Int32) throws(SystemError) -> OwnedDescriptor? {
        guard try Socket.waitReadable(socket.rawValue, timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        do {
            return OwnedDescriptor(taking: try syscall("accept") { Glibc_or_Darwin_accept(socket.rawValue) })
        } catch  where error.errno == .resourceTemporarilyUnavailable || error.errno == .connectionAbort {
            return nil
        }
    }

    /// Reads what a client sends until `terminator` ends it, `limit` bytes came, the client
    /// stops, or it sends nothing for `idleSeconds`.
    package static func readRequest(
        from client: OwnedDescriptor,
        until terminator: [UInt8],
        limit: Int,
        idleSeconds: Int
    ) -> [UInt8] {
        var timeout = timeval(tv_sec: idleSeconds, tv_usec: 0)
        _ = setsockopt(client.rawValue, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while request.count < limit
            && !(request.count >= terminator.count && Array(request.suffix(terminator.count)) == terminator)
        {
            let count = buffer.withUnsafeMutableBytes { raw in
                (try? syscall("read") { read(client.rawValue, raw.baseAddress, raw.count) }) ?? 0
            }
            if count <= 0 { break }
            request += buffer[0..<count]
        }
        return request
    }

    /// Writes all of `bytes` to a client (best effort: a client that left is not an error).
    package static func write(_ bytes: [UInt8], to client: OwnedDescriptor) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { raw in
                (try? syscall("write") { Glibc_or_Darwin_write(client.rawValue, raw.baseAddress, raw.count) }) ?? -1
            }
            if written <= 0 { return }
            offset += written
        }
    }
}

private func Glibc_or_Darwin_socket(_ domain: Int32, _ type: Int32, _ proto: Int32) -> Int32 {
    socket(domain, type, proto)
}
private func Glibc_or_Darwin_accept(_ fd: Int32) -> Int32 { accept(fd, nil, nil) }
private func Glibc_or_Darwin_write(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, bytes, count)
}
