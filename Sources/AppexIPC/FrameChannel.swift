package import AppexSystem
public import AppexVocabulary
import Synchronization
public import SystemPackage

/// A blocking, framed, descriptor-passing channel over one end of a Unix stream socket.
///
/// Any thread may ``send(_:)`` (frames never interleave); one thread at a time
/// ``receive()``s. Large payloads travel as a sealed `memfd` passed with `SCM_RIGHTS` instead of
/// through the socket. Every read is bounded: a header that is malformed, a frame over
/// ``ChannelConfiguration/maximumFrameSize``, or a shared-memory frame without its descriptor is a
/// ``/AppexVocabulary/AppexError/Code/protocolViolation`` and the channel is finished.
@_spi(Wire) public final class FrameChannel: Sendable {
    /// Limits and thresholds of a channel.
    public typealias Configuration = ChannelConfiguration

    private struct ReadState: ~Copyable {
        var buffer: [UInt8] = []
        var start = 0
        /// Where `recvmsg` writes: allocated once, never zero-filled again.
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        var descriptors: [OwnedDescriptor] = []
        var finished: AppexError?
    }

    /// The socket (owned by the channel: closed when the channel goes).
    public var socket: FileDescriptor { owned.descriptor }
    private let owned: OwnedDescriptor
    /// The channel's limits.
    public var configuration: Configuration { settings.withLock { $0 } }
    private let settings: Mutex<Configuration>
    private let reading = Mutex(ReadState())
    /// Where payloads of 1 MiB and more are received, reused from one to the next.
    private let receiveBuffers = ReceiveBufferPool()
    /// Bytes (and a descriptor) still to send, in order.
    private struct Outgoing: Sendable {
        var bytes: Payload
        var offset = 0
        var descriptor: OwnedDescriptor?
    }

    /// Sends never block the sender: what the socket does not take at once waits in `backlog`,
    /// which a writer thread sends in order; while it does, later frames queue behind it.
    private struct WriteState: ~Copyable {
        var backlog: [Outgoing] = []
        var draining = false
        var broken: SystemError?
    }
    private let writing = Mutex(WriteState())

    /// A channel over `socket`, which it takes over: it is closed when the channel goes.
    public convenience init(socket: FileDescriptor, configuration: Configuration = Configuration()) {
        self.init(owning: OwnedDescriptor(taking: socket), configuration: configuration)
    }

    /// A channel over a socket this process holds.
    package init(owning socket: OwnedDescriptor, configuration: Configuration = Configuration()) {
        self.owned = socket
        self.settings = Mutex(configuration)
    }

    /// Adopts other limits from now on (an extension adopts those its host announces).
    public func reconfigure(_ configuration: Configuration) {
        settings.withLock { $0 = configuration }
    }

    /// Two connected channels (a `socketpair`), both ends close-on-exec.
    public static func pair(
        configuration: Configuration = Configuration()
    ) throws(AppexError) -> (FrameChannel, FrameChannel) {
        do {
            let (a, b) = try Socket.pair()
            return (
                FrameChannel(owning: a, configuration: configuration),
                FrameChannel(owning: b, configuration: configuration)
            )
        } catch {
            throw AppexError(.system, "cannot make a socket pair", underlyingError: error)
        }
    }

    /// The kernel's word on who is at the other end.
    public func peerCredentials() throws(AppexError) -> PeerCredentials {
        do { return try Socket.peerCredentials(owned.rawValue) } catch {
            throw AppexError(.system, "cannot read the peer's credentials", underlyingError: error)
        }
    }

    /// Asks the kernel to attest the sender of everything that arrives from now on
    /// (`SO_PASSCRED`); see ``peekSenderCredentials()``. Turn it off again once checked: frames
    /// are not read with room for credentials.
    public func attestSenders(_ on: Bool) throws(AppexError) {
        do { try Socket.passCredentials(owned.rawValue, on) } catch {
            throw AppexError(.system, "cannot ask the kernel to attest senders", underlyingError: error)
        }
    }

    /// The kernel's word on who sent the next unread bytes (`SCM_CREDENTIALS`), without
    /// reading them; `nil` when they carry no credentials. Only meaningful for bytes sent while
    /// ``attestSenders(_:)`` was on.
    public func peekSenderCredentials() throws(AppexError) -> PeerCredentials? {
        do { return try Socket.peekSenderCredentials(owned.rawValue) } catch {
            throw AppexError(.system, "cannot read the sender's credentials", underlyingError: error)
        }
    }

    /// Shuts the socket down in both directions: a blocked ``receive()`` here returns, and the
    /// peer sees the end of the stream.
    public func shutdown() {
        Socket.shutdownBoth(owned.rawValue)
    }

    // MARK: - Sending

    /// Sends one frame.
    public func send(_ frame: Frame) throws(AppexError) {
        let configuration = self.configuration
        let size = frame.contents.count
        let useSharedMemory = size >= configuration.sharedMemoryThreshold
        if useSharedMemory {
            guard size <= configuration.maximumSharedPayloadSize else {
                throw AppexError(
                    .frameTooLarge,
                    "a \(frame.kind) of \(size) bytes exceeds the shared-memory limit of \(configuration.maximumSharedPayloadSize)"
                )
            }
        } else if size > configuration.maximumFrameSize {
            throw AppexError(
                .frameTooLarge,
                "a \(frame.kind) of \(size) bytes exceeds the frame limit of \(configuration.maximumFrameSize)"
            )
        }
        do {
            try write(frame, sharedMemory: useSharedMemory)
        } catch let error as SystemError {
            if error.errno == .brokenPipe || error.errno == .connectionReset {
                throw AppexError(.closed, "the peer closed the connection", underlyingError: error)
            }
            throw AppexError(.system, "cannot send a \(frame.kind)", underlyingError: error)
        } catch {
            throw AppexError(.system, "cannot send a \(frame.kind)", underlyingError: error)
        }
    }

    private func write(_ frame: Frame, sharedMemory: Bool) throws {
        // A trace context goes right after the header, before the payload on every path.
        let trace = frame.traceParent.flatMap { $0.count == Frame.traceParentSize ? $0 : nil }
        let traced: UInt8 = trace == nil ? 0 : Frame.traceContextFlag
        if sharedMemory {
            // Already in sealed shared memory: pass the same descriptor, copy nothing.
            let memory =
                try frame.contents.sharedDescriptor
                ?? frame.contents.withUnsafeBytes { raw throws(SystemError) in
                    try SharedMemory.make(raw, name: "appex-payload")
                }
            let header = Frame.header(
                kind: frame.kind,
                flags: Frame.sharedMemoryFlag | traced,
                requestID: frame.requestID,
                length: frame.contents.count
            )
            try transmit([Outgoing(bytes: Payload(header + (trace ?? [])), descriptor: memory)])
        } else if frame.contents.count > 64 * 1024 {
            // A large payload goes as it is, after its header: no copy into one message.
            let header = Frame.header(
                kind: frame.kind,
                flags: traced,
                requestID: frame.requestID,
                length: frame.contents.count
            )
            try transmit([Outgoing(bytes: Payload(header + (trace ?? []))), Outgoing(bytes: frame.contents)])
        } else {
            var message = Frame.header(
                kind: frame.kind,
                flags: traced,
                requestID: frame.requestID,
                length: frame.contents.count,
                reserving: frame.contents.count + (trace?.count ?? 0)
            )
            if let trace { message.append(contentsOf: trace) }
            frame.contents.withUnsafeBytes { message.append(contentsOf: $0) }
            try transmit([Outgoing(bytes: Payload(message))])
        }
    }

    /// Sends `parts` in order without ever blocking: a reader thread that also sends (replies,
    /// callers on its executor) must keep reading, or two peers that both fill each other's
    /// socket buffer would wait on each other forever.
    private func transmit(_ parts: [Outgoing]) throws(SystemError) {
        let startWriter = try writing.withLock { state throws(SystemError) -> Bool in
            if let broken = state.broken { throw broken }
            if state.draining {
                state.backlog.append(contentsOf: parts)
                return false
            }
            for (index, part) in parts.enumerated() {
                var part = part
                while part.offset < part.bytes.count || part.descriptor != nil {
                    let descriptors = part.descriptor.map { [$0.rawValue] } ?? []
                    let sent = try part.bytes.withUnsafeBytes { raw throws(SystemError) in
                        try Socket.trySend(
                            owned.rawValue,
                            UnsafeRawBufferPointer(rebasing: raw[part.offset...]),
                            descriptors: descriptors
                        )
                    }
                    if sent == 0 {
                        state.backlog = [part] + parts[(index + 1)...]
                        state.draining = true
                        return true
                    }
                    part.offset += sent
                    part.descriptor = nil
                }
            }
            return false
        }
        guard startWriter else { return }
        if !startDetachedThread(name: "appex.writer", { [self] in drainBacklog() }) {
            drainBacklog()  // no thread to spare: send the rest here, blocking
        }
    }

    /// The writer: sends the backlog in order, blocking, until it is empty.
    private func drainBacklog() {
        while true {
            let next = writing.withLock { state -> Outgoing? in
                if state.backlog.isEmpty {
                    state.draining = false
                    return nil
                }
                return state.backlog.removeFirst()
            }
            guard let part = next else { return }
            do throws(SystemError) {
                let descriptors = part.descriptor.map { [$0.rawValue] } ?? []
                try part.bytes.withUnsafeBytes { raw throws(SystemError) in
                    try Socket.send(
                        owned.rawValue,
                        UnsafeRawBufferPointer(rebasing: raw[part.offset...]),
                        descriptors: descriptors
                    )
                }
            } catch {
                // The peer is gone: what waits is dropped, and later sends say why.
                writing.withLock { state in
                    state.broken = error
                    state.backlog = []
                    state.draining = false
                }
                return
            }
        }
    }

    // MARK: - Receiving

    /// Whether bytes already read from the socket wait to be received.
    public var hasBufferedInput: Bool {
        reading.withLock { $0.buffer.count > $0.start }
    }

    /// Waits until a frame's bytes are buffered or the socket is readable (or closed).
    /// - Returns: `false` when `timeout` passed first.
    public func waitUntilReadable(timeout: Duration) throws(AppexError) -> Bool {
        let buffered = reading.withLock { $0.buffer.count > $0.start }
        if buffered { return true }
        let milliseconds = Int32(
            clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        )
        do {
            return try Socket.waitReadable(owned.rawValue, timeoutMilliseconds: milliseconds)
        } catch {
            throw AppexError(.system, "cannot wait for the peer", underlyingError: error)
        }
    }

    /// Whether ``receive()`` would return without waiting for the peer: a whole frame is
    /// buffered or waits in the socket, or the stream ended (or failed). A frame whose bytes do
    /// not fit in the socket's buffer at once is never ready here.
    public func canReceiveWithoutWaiting() -> Bool {
        reading.withLock { state -> Bool in
            if state.finished != nil { return true }
            let buffered = state.buffer.count - state.start
            let available: Int
            do throws(SystemError) {
                available = try Socket.bytesAvailable(owned.rawValue)
            } catch {
                return true  // receive() will meet the same failure and report it
            }
            if buffered + available < Frame.headerSize {
                // Nothing at all, readable: the end of the stream.
                return available == 0 && buffered == 0 && endsOrFailsNow()
            }
            // The header: buffered bytes, then the socket's, peeked.
            var header = [UInt8](repeating: 0, count: Frame.headerSize)
            let fromBuffer = min(buffered, Frame.headerSize)
            for index in 0..<fromBuffer { header[index] = state.buffer[state.start + index] }
            if fromBuffer < Frame.headerSize {
                let peeked = header.withUnsafeMutableBytes { raw in
                    (try? Socket.peek(owned.rawValue, into: UnsafeMutableRawBufferPointer(rebasing: raw[fromBuffer...])))
                        ?? nil
                }
                guard let peeked, fromBuffer + peeked == Frame.headerSize else { return false }
            }
            if header[5] & Frame.sharedMemoryFlag != 0 { return true }  // its payload is in the memory passed with it
            var length = 0
            for index in 0..<4 { length |= Int(header[index]) << (8 * index) }
            return buffered + available >= Frame.headerSize + length
        }
    }

    /// With nothing waiting in the socket: whether it is readable all the same, which is its end
    /// (or an error, which ``receive()`` reports too).
    private func endsOrFailsNow() -> Bool {
        (try? Socket.waitReadable(owned.rawValue, timeoutMilliseconds: 0)) != false
    }

    /// Receives the next frame, blocking until one is complete.
    ///
    /// - Returns: the frame, or `nil` when the peer closed the stream between frames.
    /// - Throws: ``/AppexVocabulary/AppexError`` `protocolViolation` (and the channel is finished) for anything
    ///   that is not a well-formed frame; `closed` when the stream ends inside a frame.
    public func receive() throws(AppexError) -> Frame? {
        let result = reading.withLock { state -> Result<Frame?, AppexError> in
            if let finished = state.finished { return .failure(finished) }
            do throws(AppexError) {
                return .success(try receiveFrame(&state))
            } catch {
                state.finished = error
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// What ``receiveIfReady()`` found.
    package enum Arrival {
        /// A whole frame.
        case frame(Frame)
        /// The end of the stream, between frames.
        case end
        /// Nothing: no byte waits (another reader took what there was).
        case nothing
    }

    /// Receives the next frame if its first bytes wait in the socket (or are buffered), then
    /// blocks, as ``receive()``, until the frame is whole; never waits for a first byte. One
    /// `recvmsg` when the frame is there, where asking first (`FIONREAD`) cost a system call more.
    package func receiveIfReady() throws(AppexError) -> Arrival {
        let result = reading.withLock { state -> Result<Arrival, AppexError> in
            if let finished = state.finished { return .failure(finished) }
            do throws(AppexError) {
                if state.buffer.count == state.start {
                    guard let received = try readOnce(&state, waiting: false) else { return .success(.nothing) }
                    if received == 0 { return .success(.end) }
                }
                return .success(try receiveFrame(&state).map(Arrival.frame) ?? .end)
            } catch {
                state.finished = error
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func receiveFrame(_ state: inout ReadState) throws(AppexError) -> Frame? {
        let configuration = self.configuration
        guard try fill(&state, atLeast: Frame.headerSize) else { return nil }
        let header = state.start
        var length = 0
        for index in 0..<4 { length |= Int(state.buffer[header + index]) << (8 * index) }
        let kindByte = state.buffer[header + 4]
        let flags = state.buffer[header + 5]
        var requestID: UInt64 = 0
        for index in 0..<8 { requestID |= UInt64(state.buffer[header + 8 + index]) << (8 * UInt64(index)) }
        guard state.buffer[header + 6] == 0, state.buffer[header + 7] == 0,
            flags & ~(Frame.sharedMemoryFlag | Frame.traceContextFlag) == 0
        else {
            throw AppexError(.protocolViolation, "malformed frame header (reserved bits set)")
        }
        guard Frame.Kind.isKnown(kindByte) else {
            throw AppexError(.protocolViolation, "unknown frame kind \(kindByte)")
        }
        let kind = Frame.Kind(rawValue: kindByte)
        state.start += Frame.headerSize
        var traceParent: [UInt8]?
        if flags & Frame.traceContextFlag != 0 {
            guard try fill(&state, atLeast: Frame.traceParentSize) else {
                throw AppexError(.closed, "the peer closed the connection inside a \(kind)'s trace context")
            }
            traceParent = Array(state.buffer[state.start..<(state.start + Frame.traceParentSize)])
            state.start += Frame.traceParentSize
        }
        if flags & Frame.sharedMemoryFlag != 0 {
            guard length <= configuration.maximumSharedPayloadSize else {
                throw AppexError(
                    .protocolViolation,
                    "a shared-memory \(kind) of \(length) bytes exceeds the limit of \(configuration.maximumSharedPayloadSize)"
                )
            }
            guard !state.descriptors.isEmpty else {
                throw AppexError(.protocolViolation, "a shared-memory \(kind) arrived without its descriptor")
            }
            let memory = state.descriptors.removeFirst()
            var frame = Frame(kind: kind, requestID: requestID, contents: try Payload(mapping: memory, length: length))
            frame.traceParent = traceParent
            return frame
        }
        guard length <= configuration.maximumFrameSize else {
            throw AppexError(
                .protocolViolation,
                "a \(kind) of \(length) bytes exceeds the frame limit of \(configuration.maximumFrameSize)"
            )
        }
        let payload: Payload
        if length > state.scratch.count && state.buffer.count - state.start < length {
            payload = try receiveLarge(&state, length: length, kind: kind)
        } else {
            guard try fill(&state, atLeast: length) else {
                throw AppexError(.closed, "the peer closed the connection inside a \(kind)")
            }
            payload = Payload(Array(state.buffer[state.start..<(state.start + length)]))
            state.start += length
        }
        // The kernel hands a descriptor over with the first byte of the header it was sent with, and one read may
        // take the bytes of several frames: a descriptor read with this frame may belong to a shared-memory frame
        // whose header is buffered after it. More than those headers can use is a peer passing descriptors it has no
        // frames for.
        if !state.descriptors.isEmpty && state.descriptors.count > Self.sharedHeaders(buffered: state) {
            throw AppexError(.protocolViolation, "a descriptor arrived with a frame that carries none")
        }
        var frame = Frame(kind: kind, requestID: requestID, contents: payload)
        frame.traceParent = traceParent
        return frame
    }

    /// How many shared-memory frames may start in the bytes buffered after `state.start`: the complete headers among
    /// them that say shared memory, and one more for a header cut short (its descriptor comes with its first byte).
    private static func sharedHeaders(buffered state: borrowing ReadState) -> Int {
        var headers = 0
        var offset = state.start
        while offset < state.buffer.count {
            guard state.buffer.count - offset >= Frame.headerSize else { return headers + 1 }
            let flags = state.buffer[offset + 5]
            let trace = flags & Frame.traceContextFlag != 0 ? Frame.traceParentSize : 0
            if flags & Frame.sharedMemoryFlag != 0 {
                headers += 1
                offset += Frame.headerSize + trace
            } else {
                var length = 0
                for index in 0..<4 { length |= Int(state.buffer[offset + index]) << (8 * index) }
                offset += Frame.headerSize + trace + length
            }
        }
        return headers
    }

    /// A payload larger than the scratch buffer: what is buffered, then the rest read straight
    /// into the payload (no intermediate copies). From 1 MiB on, into the channel's receive
    /// buffer — memory already faulted in, kept for the next large payload once this one is
    /// dropped — rather than a fresh array whose every page faults on the first write.
    private func receiveLarge(_ state: inout ReadState, length: Int, kind: Frame.Kind) throws(AppexError) -> Payload {
        if length >= Self.pooledPayloadSize {
            let region: UnsafeMutableRawBufferPointer
            do { region = try receiveBuffers.take(length) } catch {
                throw AppexError(.system, "cannot allocate \(length) bytes for a \(kind)", underlyingError: error)
            }
            // Owned by the payload from here: given back to the pool when it is dropped, failure or not.
            let memory = MappedMemory(receivedInto: region, length: length, pool: receiveBuffers)
            try readRest(&state, into: UnsafeMutableRawBufferPointer(rebasing: region[0..<length]), kind: kind)
            return Payload(mapped: memory)
        }
        var failure: AppexError?
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { raw, initialized in
            let target = UnsafeMutableRawBufferPointer(raw)
            SharedMemory.populate(target)
            do throws(AppexError) { try readRest(&state, into: target, kind: kind) } catch { failure = error }
            initialized = failure == nil ? length : 0
        }
        if let failure { throw failure }
        return Payload(bytes)
    }

    /// Payloads of at least this size are received into the channel's reused receive buffer.
    static let pooledPayloadSize = 1 << 20

    /// Fills `target`: first with what is buffered, then straight from the socket.
    private func readRest(
        _ state: inout ReadState,
        into target: UnsafeMutableRawBufferPointer,
        kind: Frame.Kind
    ) throws(AppexError) {
        let length = target.count
        let buffered = state.buffer.count - state.start
        var failure: AppexError?
        var descriptors = state.descriptors
        state.buffer.withUnsafeBytes { bytes in
            target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[state.start..<state.buffer.count]))
        }
        var done = buffered
        while done < length {
            do throws(SystemError) {
                let received = try Socket.receive(
                    owned.rawValue,
                    into: UnsafeMutableRawBufferPointer(rebasing: target[done..<length]),
                    descriptors: &descriptors
                )
                if received == 0 {
                    failure = AppexError(.closed, "the peer closed the connection inside a \(kind)")
                    break
                }
                done += received
            } catch {
                failure =
                    error.errno == .connectionReset
                    ? AppexError(.closed, "the peer reset the connection", underlyingError: error)
                    : AppexError(.system, "cannot read from the peer", underlyingError: error)
                break
            }
        }
        state.descriptors = descriptors
        state.buffer.removeAll(keepingCapacity: true)
        state.start = 0
        if let failure { throw failure }
    }

    /// Reads until `count` unread bytes are buffered.
    /// - Returns: `false` when the stream ended with no unread byte at all.
    private func fill(_ state: inout ReadState, atLeast count: Int) throws(AppexError) -> Bool {
        if state.start > 0 && state.start == state.buffer.count {
            state.buffer.removeAll(keepingCapacity: true)
            state.start = 0
        }
        while state.buffer.count - state.start < count {
            if state.start > 0 {
                state.buffer.removeSubrange(0..<state.start)
                state.start = 0
            }
            // Waiting: never nil.
            let received = try readOnce(&state, waiting: true) ?? 0
            if received == 0 {
                if state.buffer.count == state.start { return false }
                throw AppexError(.closed, "the peer closed the connection inside a frame")
            }
        }
        return true
    }

    /// One read from the socket, appended to the buffer. - Returns: the bytes read (0 at the
    /// end of the stream); `nil` when `waiting` is false and nothing waits.
    private func readOnce(_ state: inout ReadState, waiting: Bool) throws(AppexError) -> Int? {
        var descriptors = state.descriptors
        let outcome = state.scratch.withUnsafeMutableBytes { raw -> Result<Int?, SystemError> in
            do throws(SystemError) {
                return .success(
                    waiting
                        ? try Socket.receive(owned.rawValue, into: raw, descriptors: &descriptors)
                        : try Socket.receiveIfAvailable(owned.rawValue, into: raw, descriptors: &descriptors)
                )
            } catch {
                return .failure(error)
            }
        }
        state.descriptors = descriptors
        switch outcome {
        case .success(let received):
            if let received { state.buffer.append(contentsOf: state.scratch[0..<received]) }
            return received
        case .failure(let error):
            if error.errno == .connectionReset {
                throw AppexError(.closed, "the peer reset the connection", underlyingError: error)
            }
            throw AppexError(.system, "cannot read from the peer", underlyingError: error)
        }
    }
}
