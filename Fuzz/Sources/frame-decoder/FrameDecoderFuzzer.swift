@_spi(Fuzzing) @_spi(Wire) import AppexIPC
import FuzzSupport

#if canImport(Glibc)
import Glibc
#endif

/// Sends the input through a real socket pair and receives it with `FrameChannel.receive()` until the stream ends, as
/// a host or an extension reads every frame its peer sends: header, limits, payloads through the socket and in shared
/// memory. Any bytes must become frames or end with an `AppexError` `protocolViolation` or `closed`, never a crash, a
/// hang or an allocation the limits do not allow. The frames received must send and receive again as the same frames,
/// through the socket and in shared memory, and (when none came in shared memory) send as the very bytes they came
/// from.
///
/// The input is the stream, then up to three parts split on `\n%%\n`, each a `memfd` passed (`SCM_RIGHTS`): a part's
/// first byte says whether it is sealed (bit 0 set) as a sender seals it, the rest is its contents; an empty part is a
/// sealed, empty `memfd`. As a sender passes them, the `memfd`s travel in order with the headers of the frames whose
/// flags say shared memory (found by walking the stream's headers); those left over travel with the stream's first
/// byte, and a stream with no bytes passes none. Inputs over 64 KiB are skipped: the socket's buffer must take all of
/// one without a reader.
///
/// `frame-decoder --write-seeds DIR` writes the seed corpus instead: frames sent by a `FrameChannel` (what
/// `Fuzz/Corpus/frame-decoder` holds).
@main
enum FrameDecoderFuzzer {
    static func main() {
        if let folder = Seeds.folderToWrite { writeSeeds(to: folder) }
        LibFuzzer.run { input in
            guard input.count <= 64 << 10 else { return }
            let parts = FuzzInput.parts(of: input, limit: 4)
            let memory = parts.dropFirst().map { part in
                SocketStream.memory(holding: part.dropFirst(), sealed: part.first.map { $0 & 1 == 1 } ?? true)
            }
            let received = SocketStream.receive(parts[0], passing: memory)
            if let end = received.end, end.code != .protocolViolation && end.code != .closed {
                fatalError("the stream ended with \(end.code), not protocol-violation or closed: \(end)")
            }
            checkRoundTrip(received.frames, stream: parts[0])
        }
    }

    /// Frames received must send and receive again unchanged; sent through the socket, they must be the bytes the
    /// stream started with, up to the first frame that came in shared memory (which a channel sends through the
    /// socket when small; an empty one is not even `isShared`).
    static func checkRoundTrip(_ frames: [Frame], stream: ArraySlice<UInt8>) {
        let bytes = SocketStream.sent(frames)
        let inSocket = (SocketStream.sharedHeaders(in: stream).first ?? stream.endIndex) - stream.startIndex
        let compared = min(bytes.count, inSocket)
        guard stream.count >= compared, stream.prefix(compared).elementsEqual(bytes.prefix(compared)) else {
            fatalError("\(frames.count) frames that were received do not send as the bytes they came from")
        }
        let again = SocketStream.receive(bytes[...], passing: [])
        guard again.end == nil, again.frames == frames else {
            fatalError("\(frames.count) frames that were received do not receive again after sending")
        }
        // Sent again by a channel, every payload that is not empty in shared memory: the receiver must pair each
        // descriptor with its frame however the socket's reads cut the stream.
        var shared = FrameChannel.Configuration()
        shared.sharedMemoryThreshold = 1
        let (sender, receiver) = SocketStream.pair(shared)
        for frame in frames {
            do throws(AppexError) { try sender.send(frame) } catch {
                fatalError("a \(frame.kind) of \(frame.contents.count) bytes cannot be sent in shared memory: \(error)")
            }
        }
        sender.shutdown()
        var relayed: [Frame] = []
        do throws(AppexError) {
            while let frame = try receiver.receive() { relayed.append(frame) }
        } catch {
            fatalError("\(frames.count) frames sent in shared memory were refused after \(relayed.count): \(error)")
        }
        guard relayed == frames else {
            fatalError("\(frames.count) frames sent in shared memory did not arrive as they were sent")
        }
    }

    /// Writes every seed to `directory` as `NAME.frames` and exits.
    static func writeSeeds(to directory: String) -> Never {
        let host = Handshake.HostHello(
            hostBundleIdentifier: "com.example.host",
            extensionBundleIdentifier: "com.example.host.translate",
            extensionPoint: "com.example.translate",
            channel: FrameChannel.Configuration()
        )
        let answer = Handshake.ExtensionHello(
            extensionBundleIdentifier: "com.example.host.translate",
            boundExtensionPoint: "com.example.translate",
            processIdentifier: 4242
        )
        let calls = [
            Frame(kind: .request, requestID: 1, payload: Array("hello".utf8)),
            Frame(kind: .invocation, requestID: 2, payload: Array(0...255)),
            Frame(kind: .cancel, requestID: 2, payload: []),
            Frame(kind: .reply, requestID: 1, payload: Array("bonjour".utf8)),
            Frame(kind: .failure, requestID: 3, payload: Array("this side serves no requests".utf8)),
        ]
        let large = Frame(
            kind: .reply,
            requestID: UInt64.max,
            payload: (0..<4000).map { UInt8(truncatingIfNeeded: $0) }
        )
        let shared = Frame(kind: .reply, requestID: 7, payload: Array("a reply in shared memory".utf8))
        var everyByte = FrameChannel.Configuration()
        everyByte.sharedMemoryThreshold = 0
        // A shared-memory frame is its header on the socket and a sealed memfd of its payload.
        let sharedHeader = SocketStream.sent([shared], configuration: everyByte)
        let sealed: [UInt8] = [1] + shared.payload
        // A request in a span: its 55-byte traceparent follows the header, before the payload.
        var traced = calls[0]
        traced.traceParent = Array("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".utf8)
        Seeds.write(
            [
                ("hello-host.frames", SocketStream.sent([Frame(kind: .hello, requestID: 0, payload: host.encoded())])),
                (
                    "hello-extension.frames",
                    SocketStream.sent([Frame(kind: .hello, requestID: 0, payload: answer.encoded())])
                ),
                ("calls.frames", SocketStream.sent(calls + [Frame(kind: .goodbye, requestID: 0, payload: [])])),
                ("large.frames", SocketStream.sent([large])),
                ("shared.frames", FuzzInput.joining([sharedHeader, sealed])),
                ("shared-unsealed.frames", FuzzInput.joining([sharedHeader, [0] + shared.payload])),
                (
                    "shared-between.frames",
                    FuzzInput.joining([
                        SocketStream.sent([calls[0]]) + sharedHeader + SocketStream.sent([calls[3]]), sealed,
                    ])
                ),
                ("traced.frames", SocketStream.sent([traced, calls[3]])),
                ("traced-then-shared.frames", FuzzInput.joining([SocketStream.sent([traced]) + sharedHeader, sealed])),
            ],
            to: directory,
            target: "frame-decoder"
        )
    }
}

/// Bytes through a real socket pair, as they travel between a host and an extension.
enum SocketStream {
    /// What a channel received: the frames, and the error that ended the stream (`nil` for a clean end).
    struct Received {
        var frames: [Frame]
        var end: AppexError?
    }

    /// Receives `stream` (with `descriptors`, which it closes, on its first byte) with a `FrameChannel` until it ends.
    static func receive(_ stream: ArraySlice<UInt8>, passing descriptors: [Int32]) -> Received {
        let (receiver, sender) = pair(FrameChannel.Configuration())
        send(stream, with: descriptors, on: sender.socket.rawValue)
        for descriptor in descriptors { close(descriptor) }
        sender.shutdown()
        var received = Received(frames: [])
        do throws(AppexError) {
            while let frame = try receiver.receive() { received.frames.append(frame) }
        } catch {
            received.end = error
        }
        return received
    }

    /// The bytes a `FrameChannel` sends for `frames`: through the socket only, unless `configuration` says otherwise
    /// (descriptors passed are dropped).
    static func sent(_ frames: [Frame], configuration: FrameChannel.Configuration? = nil) -> [UInt8] {
        var inSocket = FrameChannel.Configuration()
        inSocket.sharedMemoryThreshold = .max
        inSocket.maximumFrameSize = inSocket.maximumSharedPayloadSize
        let (sender, receiver) = pair(configuration ?? inSocket)
        for frame in frames {
            do throws(AppexError) { try sender.send(frame) } catch {
                fatalError(
                    "a \(frame.kind) of \(frame.contents.count) bytes that was received cannot be sent: \(error)"
                )
            }
        }
        sender.shutdown()
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(receiver.socket.rawValue, $0.baseAddress, $0.count) }
            guard count > 0 else {
                if count < 0 && errno == EINTR { continue }
                guard count == 0 else { fatalError("read: errno \(errno)") }
                return bytes
            }
            bytes += chunk[0..<count]
        }
    }

    /// A connected pair of channels.
    static func pair(_ configuration: FrameChannel.Configuration) -> (FrameChannel, FrameChannel) {
        do throws(AppexError) { return try FrameChannel.pair(configuration: configuration) } catch {
            fatalError("cannot make a socket pair: \(error)")
        }
    }

    /// Sends all of `stream` on `socket` with `descriptors` (`SCM_RIGHTS`), in order, each on the header of the next
    /// frame that says it is in shared memory; those left over on the first byte.
    static func send(_ stream: ArraySlice<UInt8>, with descriptors: [Int32], on socket: Int32) {
        let headers = sharedHeaders(in: stream)
        var attached: [Int: [Int32]] = [:]
        for (index, descriptor) in descriptors.enumerated() {
            attached[index < headers.count ? headers[index] : stream.startIndex, default: []].append(descriptor)
        }
        let cuts = Set(attached.keys).union([stream.startIndex]).sorted() + [stream.endIndex]
        for (start, end) in zip(cuts, cuts.dropFirst()) {
            send(stream[start..<end], passing: attached[start] ?? [], on: socket)
        }
    }

    /// Where the frames of `stream` that say they are in shared memory start: its headers walked as a receiver walks
    /// them (a header's first four bytes are the payload's length, little-endian; bit 0 of its sixth says shared
    /// memory, bit 1 that a 55-byte `traceparent` follows the header).
    static func sharedHeaders(in stream: ArraySlice<UInt8>) -> [Int] {
        var headers: [Int] = []
        var offset = stream.startIndex
        while stream.endIndex - offset >= 16 {
            let length = (0..<4).reduce(0) { $0 | Int(stream[offset + $1]) << (8 * $1) }
            let trace = stream[offset + 5] & 2 == 2 ? 55 : 0
            if stream[offset + 5] & 1 == 1 {
                headers.append(offset)
                offset += 16 + trace
            } else {
                offset += 16 + trace + length
            }
        }
        return headers
    }

    /// Sends all of `bytes` on `socket`, with `descriptors` (`SCM_RIGHTS`) on the first byte.
    static func send(_ bytes: ArraySlice<UInt8>, passing descriptors: [Int32], on socket: Int32) {
        // One cmsghdr (16 bytes on 64-bit Linux) and the descriptors, padded to 8 bytes: CMSG_SPACE.
        let headerSize = MemoryLayout<cmsghdr>.size
        let control = UnsafeMutableRawBufferPointer.allocate(
            byteCount: headerSize + (4 * descriptors.count + 7) / 8 * 8,
            alignment: MemoryLayout<cmsghdr>.alignment
        )
        defer { control.deallocate() }
        control.initializeMemory(as: UInt8.self, repeating: 0)
        var header = cmsghdr()
        header.cmsg_len = headerSize + 4 * descriptors.count
        header.cmsg_level = SOL_SOCKET
        header.cmsg_type = Int32(SCM_RIGHTS)
        control.storeBytes(of: header, as: cmsghdr.self)
        for (index, descriptor) in descriptors.enumerated() {
            control.storeBytes(of: descriptor, toByteOffset: headerSize + 4 * index, as: Int32.self)
        }
        bytes.withUnsafeBytes { raw in
            var offset = 0
            var passing = !descriptors.isEmpty
            while offset < raw.count {
                var part = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + offset),
                    iov_len: raw.count - offset
                )
                let sent = withUnsafeMutablePointer(to: &part) { part in
                    var message = msghdr()
                    message.msg_iov = part
                    message.msg_iovlen = 1
                    if passing {
                        message.msg_control = control.baseAddress
                        message.msg_controllen = control.count
                    }
                    return sendmsg(socket, &message, Int32(MSG_NOSIGNAL))
                }
                guard sent >= 0 else {
                    if errno == EINTR { continue }
                    fatalError("sendmsg: errno \(errno)")
                }
                offset += sent
                passing = false
            }
        }
    }

    /// A `memfd` holding `bytes`; sealed against any change, as a sender seals the memory it passes, when `sealed`.
    static func memory(holding bytes: ArraySlice<UInt8>, sealed: Bool) -> Int32 {
        let descriptor = memfd_create("appex-fuzz", 0x0001 | 0x0002)  // MFD_CLOEXEC | MFD_ALLOW_SEALING
        guard descriptor >= 0 else { fatalError("memfd_create: errno \(errno)") }
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                guard written > 0 else { fatalError("write(memfd): errno \(errno)") }
                offset += written
            }
        }
        // F_ADD_SEALS: F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE.
        if sealed && fcntl(descriptor, 1033, 0x0001 | 0x0002 | 0x0004 | 0x0008) != 0 {
            fatalError("fcntl(F_ADD_SEALS): errno \(errno)")
        }
        return descriptor
    }
}

/// `int memfd_create(const char *name, unsigned int flags)`: Glibc declares it only under `_GNU_SOURCE`, which Swift's
/// Glibc module does not define.
@_silgen_name("memfd_create")
private func memfd_create(_ name: UnsafePointer<CChar>, _ flags: CUnsignedInt) -> CInt
