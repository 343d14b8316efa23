import CAppexSystem
import Synchronization

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The spawner thread's reserve on cgroup v1.
///
/// A process joins a cgroup by writing to `cgroup.procs`, and on v1 each such write waits for a
/// grace period of the kernel's RCU (about 10 ms on an idle machine) unless another migration
/// passed within a few milliseconds: the kernel's `cgroup_threadgroup_rwsem`. A child, though, is
/// born in the groups of the *thread* that cloned it, and v1 lets one thread sit in groups of its
/// own. So after each spawn the spawner thread makes the next process's groups and moves into
/// them (paying the grace period then, off the launch's path); the next spawn renames them to
/// that process's names and clones, and the child is born inside with no migration at all.
///
/// The memory group's limit waits until the spawner thread has moved on: the kernel's OOM killer
/// weighs every task in a group, and it must never weigh the host.
extension ProcessCgroup {
    /// Where the spawner thread sits, in each hierarchy it left its home group in.
    private struct Placement: Sendable {  // only the spawner thread reads or writes it
        /// The thread that moved: only its children are born in its groups.
        var thread: pid_t = 0
        /// Per root, the group the thread came from.
        var home: [String: String] = [:]
        /// Per root, the group it sits in now (absent: home).
        var current: [String: String] = [:]
        /// Whether `current` is a reserve no process has yet.
        var isReserve = false
        /// The process whose groups `current` are, when not a reserve.
        var occupied: ProcessCgroup?
        var occupiedChild: Int32 = 0
    }

    private static let placement = Mutex(Placement())

    /// Before a spawn, on the spawning thread: readies `cgroup`'s groups (made from the reserve
    /// when it fits, so the child is born inside; else made fresh) and makes sure the child is
    /// born in no other process's group.
    ///
    /// - Returns: the `cgroup.procs` the child must join before exec (empty when born inside).
    /// - Throws: ``SystemError`` naming the group or file that failed.
    package static func prepareSpawn(of cgroup: ProcessCgroup?) throws(SystemError) -> [OwnedDescriptor] {
        var place = placement.withLock { $0 }
        defer { placement.withLock { $0 = place } }
        guard place.thread == 0 || place.thread == currentThread() else {
            return try cgroup?.makeForJoining() ?? []  // not the spawner thread: it has no reserve
        }
        if let cgroup, place.isReserve, Set(cgroup.groups.map(\.root)) == Set(place.current.keys) {
            do throws(SystemError) {
                for group in cgroup.groups {
                    guard let reserve = place.current[group.root] else { continue }
                    _ = try syscall("rename(\(reserve), \(group.path))") { rename(reserve, group.path) }
                    place.current[group.root] = group.path
                }
                place.isReserve = false
                place.occupied = cgroup
                try cgroup.adoptReserve()
                return []
            } catch {
                // Whatever was renamed stays this process's group: leave it, then make it fresh.
                try goHome(&place)
                for group in cgroup.groups { _ = rmdir(group.path) }
            }
        }
        if !place.current.isEmpty { try goHome(&place) }
        return try cgroup?.makeForJoining() ?? []
    }

    /// After a spawn, on the same thread, with the caller already resumed: the spawner thread
    /// moves into a fresh reserve for the next spawn with the same hierarchies (leaving `child`'s
    /// groups, whose limits are then set), or home when no reserve can be made. `child` is 0 when
    /// the spawn failed: the spawner thread leaves the groups all the same, so the failed
    /// launch's `remove()` takes them now rather than at the next spawn.
    package static func settleSpawn(of cgroup: ProcessCgroup?, child: Int32) {
        guard let cgroup, cgroup.groups.allSatisfy(\.isVersion1) else { return }
        var place = placement.withLock { $0 }
        defer { placement.withLock { $0 = place } }
        let thread = currentThread()
        guard place.thread == 0 || place.thread == thread else { return }
        if place.thread == 0 {
            place.thread = thread
            place.home = homeGroups(roots: cgroup.groups.map(\.root))
        }
        if place.occupied === cgroup { place.occupiedChild = child }
        let name = "appex.\(getpid()).r\(sequence.add(1, ordering: .relaxed).newValue)"
        var made: [String: String] = [:]
        do throws(SystemError) {
            for group in cgroup.groups {
                guard place.home[group.root] != nil else {
                    throw SystemError("cgroup home(\(group.root))", .noSuchFileOrDirectory)
                }
                sweep(group.root)
                let path = group.root + "/" + name
                _ = try syscall("mkdir(\(path))") { mkdir(path, 0o700) }
                made[group.root] = path
            }
            for (root, path) in made {
                try move(thread, to: path)
                place.current[root] = path
            }
            leave(&place)
            place.isReserve = true
        } catch {
            try? goHome(&place)
            for path in made.values { _ = rmdir(path) }
        }
        if place.occupied === cgroup {
            cgroup.settle(child: child, spawnerLeft: false)  // could not leave: goHome settles it later
        }
    }

    /// Moves the spawner thread back into its home groups, removing an unused reserve.
    private static func goHome(_ place: inout Placement) throws(SystemError) {
        for (root, path) in place.current {
            guard let home = place.home[root] else { continue }
            try move(place.thread, to: home)
            place.current[root] = nil
            if place.isReserve { _ = rmdir(path) }
        }
        place.isReserve = false
        leave(&place)
    }

    /// The spawner thread is out of the process's groups it sat in: their limits can be set.
    private static func leave(_ place: inout Placement) {
        guard let occupied = place.occupied else { return }
        place.occupied = nil
        occupied.settle(child: place.occupiedChild, spawnerLeft: true)
        place.occupiedChild = 0
    }

    /// The calling thread's id.
    private static func currentThread() -> pid_t { cappex_thread_id() }

    /// Moves one thread into the group at `path` (cgroup v1's `tasks`).
    private static func move(_ thread: pid_t, to path: String) throws(SystemError) {
        try setValue("\(thread)\n", in: path + "/tasks")
    }

    /// The groups the calling thread sits in, per root (`/proc/thread-self/cgroup`: "4:memory:/path").
    private static func homeGroups(roots: [String]) -> [String: String] {
        guard let bytes = try? Syscalls.readFile("/proc/thread-self/cgroup", limit: 65536) else { return [:] }
        var homes: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ",")
            for root in roots where controllers.contains(where: { root.hasSuffix("/" + $0) }) {
                homes[root] = fields[2] == "/" ? root : root + fields[2]
            }
        }
        return homes
    }
}
