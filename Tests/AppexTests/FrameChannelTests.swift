import AppexCore
@_spi(Wire) import AppexIPC
import AppexSystem
import AppexTestTiers
import AppexVocabulary
import Foundation
import Testing

/// The wire layer over a real socket pair: framing, limits, shared memory, peer credentials.
@Suite(.timed) struct FrameChannelTests {
    @Test("frames of every size arrive intact and in order, small ones through the socket, large ones in shared memory")
    func roundTrip() throws {
        let (a, b) = try FrameChannel.pair()
        let sizes = [0, 1, 64, 65_535, 65_536, 262_143, 262_144, 3 << 20]
        startDetachedThread(name: "test.sender") {
            for (index, size) in sizes.enumerated() {
                try? a.send(
                    Frame(
                        kind: .request,
                        requestID: UInt64(index + 1),
                        payload: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
                    )
                )
            }
            a.shutdown()
        }
        for (index, size) in sizes.enumerated() {
            let frame = try #require(try b.receive())
            #expect(frame.kind == .request)
            #expect(frame.requestID == UInt64(index + 1))
            #expect(frame.payload.count == size)
            #expect(frame.payload == (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
        }
        #expect(try b.receive() == nil)
    }

    @Test(
        "a receive that does not wait for a first byte finds nothing on an empty socket, then the frame, then the end"
    )
    func receiveIfReady() throws {
        let (a, b) = try FrameChannel.pair()
        guard case .nothing = try b.receiveIfReady() else {
            Issue.record("an empty socket gave something")
            return
        }
        try a.send(Frame(kind: .request, requestID: 7, payload: [1, 2, 3]))
        guard case .frame(let frame) = try b.receiveIfReady() else {
            Issue.record("the frame sent was not received")
            return
        }
        #expect(frame.requestID == 7)
        #expect(frame.payload == [1, 2, 3])
        guard case .nothing = try b.receiveIfReady() else {
            Issue.record("a socket emptied of its one frame gave something")
            return
        }
        a.shutdown()
        guard case .end = try b.receiveIfReady() else {
            Issue.record("the end of the stream was not reported")
            return
        }
    }

    @Test("the kernel names the peer: a socket pair's peer is this process")
    func peerCredentials() throws {
        let (a, _) = try FrameChannel.pair()
        let peer = try a.peerCredentials()
        #expect(peer.processIdentifier == getpid())
        #expect(peer.userIdentifier == getuid())
    }

    @Test("an oversize frame is refused by the sender and, if sent anyway, closes the receiver with a protocol error")
    func oversize() throws {
        var small = FrameChannel.Configuration()
        small.maximumFrameSize = 1024
        small.sharedMemoryThreshold = .max
        let (a, b) = try FrameChannel.pair(configuration: small)
        let error = try #require(throws: AppexError.self) {
            try a.send(Frame(kind: .reply, requestID: 1, payload: Array(repeating: 0, count: 2048)))
        }
        #expect(error.code == .frameTooLarge)

        // A peer that lies: a raw header announcing 1 GiB.
        var header = [UInt8](repeating: 0, count: 16)
        header[3] = 0x40
        header[4] = 3
        header[8] = 9
        _ = header.withUnsafeBytes { write(a.socket.rawValue, $0.baseAddress, 16) }
        let refused = try #require(throws: AppexError.self) { try b.receive() }
        #expect(refused.code == .protocolViolation)
        #expect(refused.message.contains("exceeds the frame limit of 1024"))
        // The channel stays finished.
        #expect(throws: AppexError.self) { try b.receive() }
    }

    @Test(
        "garbage headers are protocol violations, never crashes",
        arguments: [
            [UInt8](repeating: 0xff, count: 16),  // unknown kind, reserved bits
            [4, 0, 0, 0, 99, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],  // unknown kind 99
            [4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],  // kind 0, below the first (hello, 1)
            [4, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],  // kind 8, past the last (invocation, 7)
            [0, 0, 0, 0, 2, 0, 7, 0, 1, 0, 0, 0, 0, 0, 0, 0],  // reserved byte set
            [8, 0, 0, 0, 2, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],  // shared memory without a descriptor
        ]
    )
    func garbage(_ bytes: [UInt8]) throws {
        let (a, b) = try FrameChannel.pair()
        _ = bytes.withUnsafeBytes { write(a.socket.rawValue, $0.baseAddress, $0.count) }
        let error = try #require(throws: AppexError.self) { try b.receive() }
        #expect(error.code == .protocolViolation)
    }

    @Test("a stream cut inside a frame is a closed error; cut between frames it is a clean end")
    func truncation() throws {
        let (a, b) = try FrameChannel.pair()
        try a.send(Frame(kind: .hello, requestID: 0, payload: [1, 2, 3]))
        var header = [UInt8](repeating: 0, count: 16)
        header[0] = 100
        header[4] = 2
        _ = header.withUnsafeBytes { write(a.socket.rawValue, $0.baseAddress, 16) }
        a.shutdown()
        #expect(try b.receive()?.payload == [1, 2, 3])
        let error = try #require(throws: AppexError.self) { try b.receive() }
        #expect(error.code == .closed)
    }

    @Test(
        "a shared-memory frame sent right after a small one arrives: one read may take both, its descriptor included (found with the fuzz target frame-decoder)"
    )
    func sharedAfterSmall() throws {
        var configuration = FrameChannel.Configuration()
        configuration.sharedMemoryThreshold = 64
        let (a, b) = try FrameChannel.pair(configuration: configuration)
        let shared = Array(repeating: UInt8(7), count: 100)
        try a.send(Frame(kind: .request, requestID: 1, payload: [1, 2, 3]))
        try a.send(Frame(kind: .reply, requestID: 2, payload: shared))
        try a.send(Frame(kind: .reply, requestID: 3, payload: [4]))
        a.shutdown()
        #expect(try b.receive() == Frame(kind: .request, requestID: 1, payload: [1, 2, 3]))
        let frame = try #require(try b.receive())
        #expect(frame.contents.isShared)
        #expect(frame == Frame(kind: .reply, requestID: 2, payload: shared))
        #expect(try b.receive() == Frame(kind: .reply, requestID: 3, payload: [4]))
        #expect(try b.receive() == nil)
    }

    @Test(
        "a descriptor no shared-memory frame claims is a protocol violation, whether it comes alone or before such a frame"
    )
    func unclaimedDescriptor() throws {
        // A request of 3 bytes; the header of a 5-byte reply in shared memory.
        let small: [UInt8] = [3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0] + [1, 2, 3]
        let sharedHeader: [UInt8] = [5, 0, 0, 0, 3, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]
        for (stream, descriptors) in [(small, 1), (small + sharedHeader, 2), (sharedHeader + small, 2)] {
            let (a, b) = try FrameChannel.pair()
            let memory = try (0..<descriptors).map { _ in
                try [UInt8](repeating: 9, count: 5).withUnsafeBytes { try SharedMemory.make($0, name: "test") }
            }
            try stream.withUnsafeBytes { try Socket.send(a.socket.rawValue, $0, descriptors: memory.map(\.rawValue)) }
            a.shutdown()
            let error = try #require(throws: AppexError.self) {
                while try b.receive() != nil {}
            }
            #expect(error.code == .protocolViolation)
            #expect(error.message == "a descriptor arrived with a frame that carries none")
        }
    }

    @Test("sending to a closed peer is a closed error, not SIGPIPE")
    func closedPeer() throws {
        var (a, b): (FrameChannel, FrameChannel?) = try FrameChannel.pair()
        b = nil
        _ = b
        let error = try #require(throws: AppexError.self) {
            for _ in 0..<64 {
                try a.send(Frame(kind: .request, requestID: 1, payload: Array(repeating: 1, count: 65_536)))
            }
        }
        #expect(error.code == .closed)
    }

    @Test(
        "a shared-memory payload is read in place: mapped, not copied, equal to what was sent, valid after the channel ends"
    )
    func sharedPayloadInPlace() throws {
        let (a, b) = try FrameChannel.pair()
        let sent = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try a.send(Frame(kind: .reply, requestID: 9, payload: sent))
        let frame = try #require(try b.receive())
        #expect(frame.contents.isShared)
        #expect(frame.contents.count == sent.count)
        a.shutdown()
        b.shutdown()
        #expect(frame.contents.withUnsafeBytes { Array($0) } == sent)
        #expect(frame.payload == sent)
        // Small payloads stay in the socket.
        let (c, d) = try FrameChannel.pair()
        try c.send(Frame(kind: .reply, requestID: 1, payload: [1, 2, 3]))
        #expect(try #require(try d.receive()).contents.isShared == false)
    }

    @Test("large payloads through the socket reuse one receive buffer, but never one a held payload still reads")
    func receiveBufferReuse() throws {
        var configuration = FrameChannel.Configuration()
        configuration.sharedMemoryThreshold = .max  // everything through the socket
        let (a, b) = try FrameChannel.pair(configuration: configuration)
        let size = 2 << 20
        @Sendable func pattern(_ seed: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) } }
        // The socket holds less than 2 MiB: send from a thread of its own, receive here.
        func exchange(_ seed: Int) throws -> Payload {
            let sent = startDetachedThread(name: "test.sender") {
                try? a.send(Frame(kind: .request, requestID: UInt64(seed), payload: pattern(seed)))
            }
            #expect(sent)
            return try #require(try b.receive()).contents
        }
        let first = try exchange(1)
        let second = try exchange(2)  // `first` is held: `second` must get other memory
        #expect(first.elementsEqual(pattern(1)), "a held payload was overwritten by the next one")
        #expect(second.elementsEqual(pattern(2)))
        #expect(!first.isShared && !second.isShared)
        // Dropped, a payload's buffer serves the next one; the held one stays intact.
        var third: Payload? = try exchange(3)
        #expect(third.map { $0.elementsEqual(pattern(3)) } == true)
        third = nil
        let fourth = try exchange(4)
        #expect(fourth.elementsEqual(pattern(4)))
        #expect(second.elementsEqual(pattern(2)), "a held payload was overwritten by a later one")
    }
}
