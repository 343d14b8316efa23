import AppexSystem
import AppexVocabulary
import Synchronization

/// Bytes a peer sent, where they arrived: in this process's memory, or — for a payload that
/// travelled in shared memory — in the sender's sealed memfd, mapped read-only and never copied.
///
/// Read it in place with ``withUnsafeBytes(_:)`` or as a collection; ``bytes`` makes an array
/// (a copy when the payload is mapped). The mapping stays valid as long as any copy of the
/// value lives; the memfd is sealed, so no process can change the bytes under it.
public struct Payload: RandomAccessCollection, Hashable, Sendable {
    private enum Storage: Sendable {
        case array([UInt8])
        case mapped(MappedMemory)
    }

    private let storage: Storage

    /// Bytes of this process.
    public init(_ bytes: [UInt8]) { storage = .array(bytes) }

    /// Bytes copied once into a new sealed shared memory object: from then on, sending this
    /// payload — as often as you like, to any peer — passes its descriptor and copies nothing
    /// (when it is at least the channel's shared-memory threshold). For large replies an
    /// extension serves again and again.
    public init(sharing bytes: [UInt8]) throws(AppexError) {
        let made = bytes.withUnsafeBytes { raw -> Result<OwnedDescriptor, SystemError> in
            do throws(SystemError) { return .success(try SharedMemory.make(raw, name: "appex-shared")) } catch {
                return .failure(error)
            }
        }
        let descriptor: OwnedDescriptor
        switch made {
        case .success(let made): descriptor = made
        case .failure(let error):
            throw AppexError(.system, "cannot make shared memory of \(bytes.count) bytes", underlyingError: error)
        }
        self = try Payload(mapping: descriptor, length: bytes.count, keepingDescriptor: true)
    }

    /// Maps a received sealed memfd of exactly `length` bytes read-only (faulted in at once);
    /// refuses an unsealed one (the sender could still change it under us) or one of another size.
    init(mapping fd: OwnedDescriptor, length: Int, keepingDescriptor: Bool = false) throws(AppexError) {
        do {
            let buffer = try SharedMemory.mapSealed(fd.rawValue, length: length)
            guard length > 0 else {
                self.init([])
                return
            }
            self.init(mapped: MappedMemory(buffer: buffer, descriptor: keepingDescriptor ? fd : nil))
        } catch {
            switch error {
            case .notSealed:
                throw AppexError(.protocolViolation, "a shared-memory payload was not sealed against change")
            case .sizeMismatch:
                throw AppexError(
                    .protocolViolation,
                    "a shared-memory payload's size does not match its frame (\(length) bytes announced)"
                )
            case .system(let failure):
                throw AppexError(
                    .system,
                    "cannot map a shared-memory payload of \(length) bytes",
                    underlyingError: failure
                )
            }
        }
    }

    init(mapped memory: MappedMemory) { storage = .mapped(memory) }

    /// The sealed memfd behind a shared payload (sent as is, never copied).
    var sharedDescriptor: OwnedDescriptor? {
        if case .mapped(let memory) = storage { memory.descriptor } else { nil }
    }

    /// Whether the bytes are read in place from the sender's shared memory.
    public var isShared: Bool {
        if case .mapped(let memory) = storage { memory.pool == nil } else { false }
    }

    /// The bytes as an array: free for bytes of this process, one copy for shared memory.
    public var bytes: [UInt8] {
        switch storage {
        case .array(let bytes): bytes
        case .mapped(let memory): Array(memory.buffer)
        }
    }

    /// Calls `body` with the bytes where they are.
    public func withUnsafeBytes<Value, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        switch storage {
        case .array(let bytes):
            let outcome: Result<Value, Failure> = bytes.withUnsafeBytes { raw in
                do throws(Failure) { return .success(try body(raw)) } catch { return .failure(error) }
            }
            return try outcome.get()
        case .mapped(let memory):
            return try body(memory.buffer)
        }
    }

    /// The first index: 0.
    public var startIndex: Int { 0 }
    /// One past the last byte: the payload's size.
    public var endIndex: Int {
        switch storage {
        case .array(let bytes): bytes.count
        case .mapped(let memory): memory.buffer.count
        }
    }

    /// The byte at `position`.
    public subscript(position: Int) -> UInt8 {
        switch storage {
        case .array(let bytes): bytes[position]
        case .mapped(let memory): memory.buffer[position]
        }
    }

    /// Whether both hold the same bytes, wherever they are.
    public static func == (lhs: Payload, rhs: Payload) -> Bool {
        lhs.count == rhs.count
            && lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in left.elementsEqual(right) } }
    }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// Memory a payload is read from in place, released when the last reference goes: a read-only
/// mapping of a sealed memfd (unmapped), or a receive buffer of this process (given back to its
/// channel's pool, for the next large payload). Immutable once made: the seals forbid writes by
/// any process, and a receive buffer is written only before its payload exists.
final class MappedMemory: @unchecked Sendable {
    let buffer: UnsafeRawBufferPointer
    /// The sealed memfd mapped, kept (for `Payload(sharing:)` only) so the payload can be sent
    /// again without a copy. Received payloads close theirs once mapped: a process that keeps
    /// many of them must not run out of descriptors.
    let descriptor: OwnedDescriptor?
    /// The pool a receive buffer goes back to; `nil` for shared memory.
    let pool: ReceiveBufferPool?
    private let region: UnsafeMutableRawBufferPointer?

    init(buffer: UnsafeRawBufferPointer, descriptor: OwnedDescriptor?) {
        self.buffer = buffer
        self.descriptor = descriptor
        self.pool = nil
        self.region = nil
    }

    /// The first `length` bytes of a receive buffer `region` of `pool`.
    init(receivedInto region: UnsafeMutableRawBufferPointer, length: Int, pool: ReceiveBufferPool) {
        self.buffer = UnsafeRawBufferPointer(rebasing: region[0..<length])
        self.descriptor = nil
        self.pool = pool
        self.region = region
    }

    deinit {
        if let pool, let region {
            pool.giveBack(region)
        } else {
            SharedMemory.unmap(buffer)
        }
    }
}

/// One receive buffer a channel keeps for its next large payload: memory faulted in once and
/// reused, where a fresh 64 MiB array would fault in every page again (~13–25 ms on the
/// development VM). A buffer is handed out only while no payload uses it.
final class ReceiveBufferPool: Sendable {
    /// A buffer handed over whole: one owner at a time (the slot, or one payload).
    private struct Region: @unchecked Sendable {
        let memory: UnsafeMutableRawBufferPointer
    }

    private let slot = Mutex<Region?>(nil)

    /// A buffer of at least `length` bytes (the kept one when it fits, else a new one).
    func take(_ length: Int) throws(SystemError) -> UnsafeMutableRawBufferPointer {
        let kept = slot.withLock { slot -> Region? in
            guard let region = slot, region.memory.count >= length, region.memory.count <= 2 * length else {
                return nil
            }
            slot = nil
            return region
        }
        if let kept { return kept.memory }
        return try AnonymousMemory.allocate(length)
    }

    /// Keeps `region` for the next payload (unmapping the one kept before, if any).
    func giveBack(_ region: UnsafeMutableRawBufferPointer) {
        let replaced = slot.withLock { slot -> Region? in
            defer { slot = Region(memory: region) }
            return slot
        }
        if let replaced { SharedMemory.unmap(UnsafeRawBufferPointer(replaced.memory)) }
    }

    deinit {
        if let region = slot.withLock({ $0 }) { SharedMemory.unmap(UnsafeRawBufferPointer(region.memory)) }
    }
}

/// A handler of raw calls that takes and gives bytes where they are: a request that arrived in
/// shared memory is read in place, and a reply made with ``Payload/init(sharing:)`` is sent
/// without a copy. A thrown error becomes a `remote-failure` on the peer's side.
public typealias PayloadRequestHandler = @Sendable (_ request: Payload) async throws -> Payload
