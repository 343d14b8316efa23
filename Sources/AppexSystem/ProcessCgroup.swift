import Synchronization
import SystemPackage

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The cgroups made for one sandboxed process: a pids group whose `pids.max` bounds its
/// processes and threads together (for root too, where `RLIMIT_NPROC` does not hold), and a
/// memory group whose limit bounds the memory it is charged for (resident pages and page cache,
/// not address space). On cgroup v2 both are one directory; on v1 each hierarchy has its own.
///
/// ``make(in:maximumTasks:memoryBytes:)`` only plans them; the spawner thread makes them just
/// before the clone (``prepareSpawn(of:)``). On cgroup v1 the process is born inside them: the
/// spawner thread waits in a reserve group, which becomes this process's, because joining a
/// group costs a grace period of the kernel's RCU (about 10 ms) that a launch should not wait
/// for (docs/decisions/0129-resource-limits-by-default.md). Elsewhere the child joins each before
/// exec. Once it ended, the host asks ``memoryLimitKills`` whether it was ended for its memory
/// limit, then ``remove()``s the groups.
package final class ProcessCgroup: Sendable {
    /// Where per-process groups can be made; `nil` for a controller no writable hierarchy offers.
    package struct Roots: Sendable, Hashable {
        /// The pids controller's directory (v1's pids hierarchy, or v2's root).
        package var pids: String?
        /// The memory controller's directory (v1's memory hierarchy, or v2's root).
        package var memory: String?
    }

    /// One limit file and its value.
    struct Setting: Sendable {
        let file: String
        let value: UInt64
        /// Absent on some kernels (no swap accounting): skipped then.
        let optional: Bool
    }

    /// One hierarchy's group.
    struct Group: Sendable {
        /// The hierarchy's directory.
        let root: String
        /// The group's directory.
        let path: String
        let settings: [Setting]
        /// Whether `root` is a cgroup v1 hierarchy, where one thread may sit in a group of its own.
        var isVersion1: Bool { root.hasSuffix("/pids") || root.hasSuffix("/memory") }
        /// Whether this is a memory group (whose limit must wait until no thread of the host is
        /// inside: the OOM killer would weigh the host too).
        var limitsMemory: Bool { settings.contains { $0.file.hasPrefix("memory.") } }
    }

    private struct State {
        /// Made, from the reserve, with the spawner thread still inside: the limits wait.
        var spawnerInside = false
        /// Whether the memory group's limit could not be set because the process was already
        /// past it (it was born with none, and then killed).
        var exceededAtStart = false
        var removeAsked = false
    }

    let groups: [Group]
    /// The groups' directories.
    package var paths: [String] { groups.map(\.path) }
    /// The memory group's file that counts OOM kills (`memory.events` on v2, `memory.oom_control`
    /// on v1), if there is a memory group.
    private let memoryEvents: String?
    private let state = Mutex(State())

    private init(groups: [Group], memoryEvents: String?) {
        self.groups = groups
        self.memoryEvents = memoryEvents
    }

    static let sequence = Atomic<Int>(0)
    /// When each hierarchy was last swept (``sweep(_:)``).
    private static let lastSweeps = Mutex<[String: ContinuousClock.Instant]>([:])

    /// The writable hierarchies: cgroup v1's `pids` and `memory` hierarchies, or cgroup v2's root
    /// for each controller it hands down to its children (`cgroup.subtree_control`).
    static func roots() -> Roots {
        var roots = Roots()
        let unified = "/sys/fs/cgroup"
        var delegated: [Substring] = []
        if access(unified + "/cgroup.procs", W_OK) == 0,
            let control = try? Syscalls.readFile(unified + "/cgroup.subtree_control", limit: 4096)
        {
            delegated = String(decoding: control, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        }
        for (controller, keyPath) in [("pids", \Roots.pids), ("memory", \Roots.memory)] {
            if access(unified + "/" + controller + "/cgroup.procs", W_OK) == 0 {
                roots[keyPath: keyPath] = unified + "/" + controller  // v1
            } else if delegated.contains(where: { $0 == controller }) {
                roots[keyPath: keyPath] = unified  // v2
            }
        }
        return roots
    }

    /// Plans the groups `root/appex.<pid>.<n>` a process needs: `pids.max = maximumTasks` where
    /// given, a memory limit of `memoryBytes` (and no swap beyond it) where given. Nothing is
    /// made yet. `nil` when neither is asked for or no root offers them.
    static func make(in roots: Roots, maximumTasks: UInt64?, memoryBytes: UInt64?) -> ProcessCgroup? {
        let name = "appex.\(getpid()).\(sequence.add(1, ordering: .relaxed).newValue)"
        var settings: [String: [Setting]] = [:]
        var memoryEvents: String?
        if let maximumTasks, let root = roots.pids {
            settings[root, default: []].append(Setting(file: "pids.max", value: maximumTasks, optional: false))
        }
        if let memoryBytes, let root = roots.memory {
            let path = root + "/" + name
            if root.hasSuffix("/memory") {  // v1: the limit, then memory and swap together
                settings[root, default: []] += [
                    Setting(file: "memory.limit_in_bytes", value: memoryBytes, optional: false),
                    Setting(file: "memory.memsw.limit_in_bytes", value: memoryBytes, optional: true),
                ]
                memoryEvents = path + "/memory.oom_control"
            } else {
                settings[root, default: []] += [
                    Setting(file: "memory.max", value: memoryBytes, optional: false),
                    Setting(file: "memory.swap.max", value: 0, optional: true),
                    Setting(file: "memory.oom.group", value: 1, optional: true),
                ]
                memoryEvents = path + "/memory.events"
            }
        }
        guard !settings.isEmpty else { return nil }
        let groups = settings.sorted(by: { $0.key < $1.key }).map { root, files in
            Group(root: root, path: root + "/" + name, settings: files)
        }
        return ProcessCgroup(groups: groups, memoryEvents: memoryEvents)
    }

    /// Makes the groups with their limits, for a child that joins them before exec.
    ///
    /// - Returns: each group's `cgroup.procs`, open for writing: the child writes "0" to each.
    func makeForJoining() throws(SystemError) -> [OwnedDescriptor] {
        var made: [String] = []
        var procs: [OwnedDescriptor] = []
        do throws(SystemError) {
            for group in groups {
                Self.sweep(group.root)
                _ = try syscall("mkdir(\(group.path))") { mkdir(group.path, 0o700) }
                made.append(group.path)
                try Self.apply(group.settings, in: group.path)
                let fd = try syscall("open(\(group.path)/cgroup.procs)") {
                    open(group.path + "/cgroup.procs", O_WRONLY | O_CLOEXEC)
                }
                procs.append(OwnedDescriptor(taking: fd))
            }
        } catch {
            for path in made { rmdir(path) }
            throw error
        }
        return procs
    }

    /// The reserve groups (one per hierarchy, the spawner thread inside) became this process's:
    /// `pids.max` allows one more task (the spawner thread) until it left; the memory limit
    /// waits for ``settle(child:spawnerLeft:)``.
    func adoptReserve() throws(SystemError) {
        for group in groups where !group.limitsMemory {
            try Self.apply(
                group.settings.map { Setting(file: $0.file, value: $0.value + 1, optional: $0.optional) },
                in: group.path
            )
        }
        state.withLock { $0.spawnerInside = true }
    }

    /// After a spawn from the reserve: once the spawner thread left, the limits are set (a
    /// process already past its memory limit is killed, and reported for it); if it could not
    /// leave, the process is killed, since its memory limit cannot be set safely. Then the
    /// groups are removed if the host asked while the spawner was inside.
    func settle(child: Int32, spawnerLeft: Bool) {
        guard state.withLock({ $0.spawnerInside }) else { return }
        var killed = !spawnerLeft
        if spawnerLeft {
            for group in groups {
                do { try Self.apply(group.settings, in: group.path) } catch {
                    killed = true
                    if group.limitsMemory { state.withLock { $0.exceededAtStart = true } }
                }
            }
        }
        if killed && child > 0 { _ = kill(child, SIGKILL) }
        let remove = state.withLock { state in
            state.spawnerInside = !spawnerLeft
            return spawnerLeft && state.removeAsked
        }
        if remove { self.remove() }
    }

    /// Writes `settings` into the group at `path`, skipping optional files the kernel lacks.
    private static func apply(_ settings: [Setting], in path: String) throws(SystemError) {
        for setting in settings {
            do { try setValue("\(setting.value)\n", in: path + "/" + setting.file) } catch {
                if setting.optional && (error.errno == .noSuchFileOrDirectory || error.errno == .invalidArgument) {
                    continue  // no swap accounting, an older kernel
                }
                throw error
            }
        }
    }

    static func setValue(_ text: String, in path: String) throws(SystemError) {
        let fd = try syscall("open(\(path))") { open(path, O_WRONLY | O_CLOEXEC) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        _ = try syscall("write(\(path))") { write(fd, bytes, bytes.count) }
    }

    /// How many processes were ended in the memory group because it reached its limit: the
    /// kernel's OOM killer's count (`oom_kill` of its events), or 1 for a process already past
    /// the limit when it was set; 0 without a memory group.
    package var memoryLimitKills: Int {
        if state.withLock({ $0.exceededAtStart }) { return 1 }
        guard let memoryEvents, let bytes = try? Syscalls.readFile(memoryEvents, limit: 4096) else { return 0 }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == "oom_kill", let count = Int(words[1]) { return count }
        }
        return 0
    }

    /// Deletes the groups (they must be empty: the process ended and was reaped); quietly leaves
    /// one that something still runs in (a later sweep takes it). While the spawner thread is
    /// still inside, the groups go once it left.
    package func remove() {
        let waits = state.withLock { state in
            state.removeAsked = true
            return state.spawnerInside
        }
        guard !waits else { return }
        for path in paths { _ = rmdir(path) }
    }

    /// Removes `appex.<pid>.*` groups whose host process is gone (best effort: a group still
    /// holding processes stays), at most once a minute per hierarchy: the listing grows with the
    /// host's own running extensions, and reading it at every launch made a burst of launches
    /// quadratic (decision 0129). A dead host's groups hold nothing; they can wait that long.
    static func sweep(_ root: String) {
        let now = ContinuousClock.now
        let due = lastSweeps.withLock { last -> Bool in
            if let previous = last[root], now - previous < .seconds(60) { return false }
            last[root] = now
            return true
        }
        guard due, let names = try? Syscalls.directoryEntries(root) else { return }
        for name in names where name.hasPrefix("appex.") {
            let parts = name.split(separator: ".")
            guard parts.count == 3, let pid = Int32(parts[1]), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { _ = rmdir(root + "/" + name) }
        }
    }
}
