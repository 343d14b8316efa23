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
/// Layout (little-endian, version 1): a 4096-byte header — `APXSTAT1`, the version, the slot
/// size, the slot capacity, the writer's pid, its start time in clock ticks after boot
/// (`/proc/PID/stat`'s 22nd field: a pid reused by another process does not match), and its
/// name (64 bytes) — then `capacity` slots of 384 bytes: a state word (1 once published), the
/// name's length, the name (248 bytes of UTF-8) and 16 counters.
package final class CounterFile: Sendable {
    /// How many counters a slot holds.
    package static let countersPerSlot = 16
    /// How many slots a file holds; a writer that has used them all counts into the last one.
    package static let capacity = 1024
    static let magic: [UInt8] = Array("APXSTAT1".utf8)
    static let version: UInt32 = 1
    static let headerSize = 4096
    static let slotSize = 384
    static let nameCapacity = 248
    static let countersOffset = 8 + nameCapacity
    static let hostNameCapacity = 64
    static var fileSize: Int { headerSize + capacity * slotSize }

    private nonisolated(unsafe) let base: UnsafeMutableRawPointer
    private let slots = Mutex<(byName: [String: Int], published: Int)>(([:], 0))

    /// Makes (or remakes) the file at `path` for this process, named `name`; mode 0600.
    package init(creatingAt path: String, name: String) throws(SystemError) {
        let descriptor = try OwnedDescriptor(
            taking: syscall("open") { open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        )
        _ = try syscall("ftruncate") { ftruncate(descriptor.rawValue, off_t(Self.fileSize)) }
        guard let mapped = mmap(nil, Self.fileSize, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor.rawValue, 0),
            mapped != MAP_FAILED
        else { throw SystemError("mmap(\(path))", .current) }
        base = mapped
        writeHeader(name: name)
    }

    /// Counters in this process's memory only: where a process counts when its file cannot be made.
    package init(inMemoryNamed name: String) {
        base = UnsafeMutableRawPointer.allocate(byteCount: Self.fileSize, alignment: 64)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: Self.fileSize)
        writeHeader(name: name)
    }

    private func writeHeader(name: String) {
        base.copyMemory(from: Self.magic, byteCount: 8)
        base.storeBytes(of: Self.version.littleEndian, toByteOffset: 8, as: UInt32.self)
        base.storeBytes(of: UInt32(Self.slotSize).littleEndian, toByteOffset: 12, as: UInt32.self)
        base.storeBytes(of: UInt32(Self.capacity).littleEndian, toByteOffset: 16, as: UInt32.self)
        base.storeBytes(of: getpid().littleEndian, toByteOffset: 20, as: Int32.self)
        let ticks = Self.startTicks(of: getpid()) ?? 0
        base.storeBytes(of: ticks.littleEndian, toByteOffset: 24, as: UInt64.self)
        let bytes = Self.truncated(name, to: Self.hostNameCapacity)
        base.storeBytes(of: UInt32(bytes.count).littleEndian, toByteOffset: 32, as: UInt32.self)
        (base + 36).copyMemory(from: bytes, byteCount: bytes.count)
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

    /// Counter `index` of `slot` now.
    package func value(_ index: Int, in slot: Int) -> UInt64 {
        cappex_counter_load(counter(index, in: slot))
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
        /// That process's start time, in clock ticks after boot.
        package var startTicks: UInt64
        /// The name it gave itself.
        package var name: String
        /// Each published slot's name and counters, in the order they were published.
        package var slots: [(name: String, counters: [UInt64])]

        /// Whether the process that wrote it still runs (the same process, not a reuse of its pid).
        package var writerIsRunning: Bool {
            CounterFile.startTicks(of: processIdentifier).map { $0 == startTicks } ?? false
        }
    }

    /// The file at `path` now, or `nil` when it is not a counter file of this version.
    package static func read(_ path: String) -> Contents? {
        let raw = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard raw >= 0 else { return nil }
        let descriptor = OwnedDescriptor(taking: raw)
        var status = Glibc_or_Darwin_stat_t()
        guard fstat(descriptor.rawValue, &status) == 0, Int(status.st_size) == fileSize,
            let mapped = mmap(nil, fileSize, PROT_READ, MAP_SHARED, descriptor.rawValue, 0), mapped != MAP_FAILED
        else { return nil }
        defer { munmap(mapped, fileSize) }
        let base = UnsafeRawPointer(mapped)
        guard Array(UnsafeRawBufferPointer(start: base, count: 8)) == magic,
            UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) == version,
            UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 12, as: UInt32.self)) == UInt32(slotSize),
            UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 16, as: UInt32.self)) == UInt32(capacity)
        else { return nil }
        let nameLength = min(
            Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 32, as: UInt32.self))),
            hostNameCapacity
        )
        var contents = Contents(
            processIdentifier: Int32(littleEndian: base.loadUnaligned(fromByteOffset: 20, as: Int32.self)),
            startTicks: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 24, as: UInt64.self)),
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
        return contents
    }

    /// When process `pid` started, in clock ticks after boot (`/proc/PID/stat`, field 22), or
    /// `nil` when there is no such process.
    package static func startTicks(of pid: Int32) -> UInt64? {
        guard let bytes = try? Syscalls.readFile("/proc/\(pid)/stat", limit: 4096) else { return nil }
        // The command name (field 2) is in parentheses and may hold spaces: count after its end.
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // fields[0] is field 3 (state): field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }
}
