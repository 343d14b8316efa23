import CAppexSystem
import Synchronization

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Named rows of 64-bit counters in a file mapped shared: the process that made it counts with
/// atomic adds into the mapping (no system call, no lock), and any other process reads the file
/// as it is now. The way `jstat` reads a JVM's `hsperfdata`: a running host's figures, for
/// `appex stats`, at the cost of an add per event.
///
/// The writer holds a shared `flock` on the file for as long as it lives: a reader that can take
/// an exclusive one knows the writer is gone (ended, or killed with `kill -9`), whatever pid now
/// runs. A writer never truncates an existing file (it removes the name and makes a new one), so
/// no mapping, its own or a reader's, ever loses its pages.
///
/// Layout (little-endian, version 1): a 4096-byte header — `APXSTAT1` (stored last: a reader
/// that sees it sees the rest), the version, the slot size, the slot capacity, the writer's pid,
/// 8 reserved bytes, and its name (64 bytes) — then `capacity` slots of 384 bytes: a state word
/// (1 once published), the name's length, the name (248 bytes of UTF-8) and 16 counters.
package final class CounterFile: Sendable {
    /// How many counters a slot holds.
    package static let countersPerSlot = 16
    /// How many slots a file holds; a writer that has used them all counts into the last one.
    package static let capacity = 1024
    /// `APXSTAT1` as a little-endian word.
    static let magic: UInt64 = Array("APXSTAT1".utf8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    static let version: UInt32 = 1
    static let headerSize = 4096
    static let slotSize = 384
    static let nameCapacity = 248
    static let countersOffset = 8 + nameCapacity
    static let hostNameCapacity = 64
    static var fileSize: Int { headerSize + capacity * slotSize }

    // Written only through the C helpers' atomics (counters, state words) or before a slot's or
    // the header's publication; never unmapped (a file lives as long as its process).
    private nonisolated(unsafe) let base: UnsafeMutableRawPointer
    private let slots = Mutex<(byName: [String: Int], published: Int)>(([:], 0))
    /// The file, open and share-locked for this process's life: its lock says the writer lives.
    private let descriptor: OwnedDescriptor?

    /// Makes the file at `path` for this process, named `name`, mode 0600, in `directory`'s
    /// place: whatever had the name is removed first, never truncated (a reader may map it).
    package init(creatingAt path: String, name: String) throws(SystemError) {
        if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink(\(path))", .current) }
        let descriptor = try OwnedDescriptor(
            taking: syscall("open(\(path))") { open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        )
        _ = try syscall("flock") { flock(descriptor.rawValue, LOCK_SH) }
        _ = try syscall("ftruncate") { ftruncate(descriptor.rawValue, off_t(Self.fileSize)) }
        guard let mapped = mmap(nil, Self.fileSize, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor.rawValue, 0),
            mapped != MAP_FAILED
        else { throw SystemError("mmap(\(path))", .current) }
        base = mapped
        self.descriptor = descriptor
        writeHeader(name: name)
    }

    /// Counters in this process's memory only: where a process counts when its file cannot be made.
    package init(inMemoryNamed name: String) {
        base = UnsafeMutableRawPointer.allocate(byteCount: Self.fileSize, alignment: 64)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: Self.fileSize)
        descriptor = nil
        writeHeader(name: name)
    }

    private func writeHeader(name: String) {
        base.storeBytes(of: Self.version.littleEndian, toByteOffset: 8, as: UInt32.self)
        base.storeBytes(of: UInt32(Self.slotSize).littleEndian, toByteOffset: 12, as: UInt32.self)
        base.storeBytes(of: UInt32(Self.capacity).littleEndian, toByteOffset: 16, as: UInt32.self)
        base.storeBytes(of: getpid().littleEndian, toByteOffset: 20, as: Int32.self)
        let bytes = Self.truncated(name, to: Self.hostNameCapacity)
        base.storeBytes(of: UInt32(bytes.count).littleEndian, toByteOffset: 32, as: UInt32.self)
        (base + 36).copyMemory(from: bytes, byteCount: bytes.count)
        cappex_word64_publish(base.assumingMemoryBound(to: UInt64.self), Self.magic)
    }

    /// Whether `path` is a directory of this user's that no one else may enter or write: the only
    /// kind a host makes its counter file in (another user could otherwise plant or shrink it).
    package static func isPrivateDirectory(_ path: String) -> Bool {
        var status = Glibc_or_Darwin_stat_t()
        guard lstat(path, &status) == 0 else { return false }
        return (status.st_mode & S_IFMT) == S_IFDIR && status.st_uid == geteuid() && status.st_mode & 0o077 == 0
    }

    /// The slot of `name`, published the first time it is asked for. Once all but the last slot
    /// are used, every new name shares the last one, published as `(more)`.
    package func slot(named name: String) -> Int {
        slots.withLock { slots in
            if let slot = slots.byName[name] { return slot }
            let overflow = Self.capacity - 1
            let slot = min(slots.published, overflow)
            if slots.published <= overflow {
                publish(slot == overflow ? "(more)" : name, at: slot)
                slots.published += 1
            }
            slots.byName[name] = slot
            return slot
        }
    }

    private func publish(_ name: String, at slot: Int) {
        let start = base + Self.headerSize + slot * Self.slotSize
        let bytes = Self.truncated(name, to: Self.nameCapacity)
        start.storeBytes(of: UInt32(bytes.count).littleEndian, toByteOffset: 4, as: UInt32.self)
        (start + 8).copyMemory(from: bytes, byteCount: bytes.count)
        cappex_word_publish(start.assumingMemoryBound(to: UInt32.self), 1)
    }

    private func counter(_ index: Int, in slot: Int) -> UnsafeMutablePointer<UInt64> {
        (base + Self.headerSize + slot * Self.slotSize + Self.countersOffset + index * 8)
            .assumingMemoryBound(to: UInt64.self)
    }

    /// Adds `value` to counter `index` of `slot`.
    package func add(_ value: UInt64, to index: Int, in slot: Int) {
        cappex_counter_add(counter(index, in: slot), value)
    }

    /// Sets counter `index` of `slot` to `value`.
    package func set(_ index: Int, in slot: Int, to value: UInt64) {
        cappex_counter_store(counter(index, in: slot), value)
    }

    /// Raises counter `index` of `slot` to `value` when it is lower.
    package func raise(_ index: Int, in slot: Int, to value: UInt64) {
        cappex_counter_raise(counter(index, in: slot), value)
    }

    /// Sets counter `index` of `slot` to `replacement` if it is `expected`.
    package func replace(_ index: Int, in slot: Int, ifEqualTo expected: UInt64, with replacement: UInt64) {
        cappex_counter_replace(counter(index, in: slot), expected, replacement)
    }

    private static func truncated(_ name: String, to capacity: Int) -> [UInt8] {
        var bytes = Array(name.utf8.prefix(capacity))
        while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        return bytes
    }

    // MARK: - Reading another process's file

    /// One file as it was read: its writer and its published slots.
    package struct Contents: Sendable {
        /// The process that writes it.
        package var processIdentifier: Int32
        /// The name it gave itself.
        package var name: String
        /// Each published slot's name and counters, in the order they were published.
        package var slots: [(name: String, counters: [UInt64])]
    }

    /// What a reader found at a path.
    package enum Reading: Sendable {
        /// A running process's counters.
        case live(Contents)
        /// A counter file whose writer is gone: it was removed.
        case abandoned
    }

    /// The file at `path` now; `nil` when it is not a counter file of this version owned by this
    /// user (left alone). A file whose writer is gone is removed, and said so.
    package static func read(_ path: String) -> Reading? {
        let raw = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard raw >= 0 else { return nil }
        let descriptor = OwnedDescriptor(taking: raw)
        var status = Glibc_or_Darwin_stat_t()
        // Only this user's regular files of the exact size: another user's could shrink under
        // the mapping.
        guard fstat(descriptor.rawValue, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            status.st_uid == geteuid(), Int(status.st_size) == fileSize,
            let mapped = mmap(nil, fileSize, PROT_READ, MAP_SHARED, descriptor.rawValue, 0), mapped != MAP_FAILED
        else { return nil }
        defer { munmap(mapped, fileSize) }
        let base = UnsafeRawPointer(mapped)
        guard cappex_word64_acquire(base.assumingMemoryBound(to: UInt64.self)) == magic,
            UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) == version,
            UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 12, as: UInt32.self)) == UInt32(slotSize),
            UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 16, as: UInt32.self)) == UInt32(capacity)
        else { return nil }
        // The writer holds a shared lock while it lives: an exclusive one is ours only once it is gone.
        if flock(descriptor.rawValue, LOCK_EX | LOCK_NB) == 0 {
            // Still the file at `path` (not a new one a new process made there since): remove it.
            var now = Glibc_or_Darwin_stat_t()
            if lstat(path, &now) == 0, now.st_ino == status.st_ino, now.st_dev == status.st_dev {
                unlink(path)
            }
            return .abandoned
        }
        let nameLength = min(
            Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 32, as: UInt32.self))),
            hostNameCapacity
        )
        var contents = Contents(
            processIdentifier: Int32(littleEndian: base.loadUnaligned(fromByteOffset: 20, as: Int32.self)),
            name: String(decoding: UnsafeRawBufferPointer(start: base + 36, count: nameLength), as: UTF8.self),
            slots: []
        )
        for slot in 0..<capacity {
            let start = base + headerSize + slot * slotSize
            guard cappex_word_acquire(start.assumingMemoryBound(to: UInt32.self)) == 1 else { break }
            let length = min(
                Int(UInt32(littleEndian: start.loadUnaligned(fromByteOffset: 4, as: UInt32.self))),
                nameCapacity
            )
            let name = String(decoding: UnsafeRawBufferPointer(start: start + 8, count: length), as: UTF8.self)
            let counters = (0..<countersPerSlot).map { index in
                cappex_counter_load((start + countersOffset + index * 8).assumingMemoryBound(to: UInt64.self))
            }
            contents.slots.append((name, counters))
        }
        return .live(contents)
    }
}
