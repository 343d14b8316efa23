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
/// The child joins each before exec; once it ended, the host asks ``memoryLimitKills`` whether
/// the kernel's OOM killer ended it for its limit, then ``remove()``s the groups.
package final class ProcessCgroup: Sendable {
    /// Where per-process groups can be made; `nil` for a controller no writable hierarchy offers.
    package struct Roots: Sendable, Hashable {
        /// The pids controller's directory (v1's pids hierarchy, or v2's root).
        package var pids: String?
        /// The memory controller's directory (v1's memory hierarchy, or v2's root).
        package var memory: String?
    }

    /// The groups' directories.
    package let paths: [String]
    /// Each group's `cgroup.procs`, open for writing: the child writes "0" to each to join.
    let procs: [OwnedDescriptor]
    /// The memory group's file that counts OOM kills (`memory.events` on v2, `memory.oom_control`
    /// on v1), if there is a memory group.
    private let memoryEvents: String?

    private init(paths: [String], procs: [OwnedDescriptor], memoryEvents: String?) {
        self.paths = paths
        self.procs = procs
        self.memoryEvents = memoryEvents
    }

    private static let sequence = Atomic<Int>(0)

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

    /// Makes the groups `root/appex.<pid>.<n>` a process needs: `pids.max = maximumTasks`
    /// where given, a memory limit of `memoryBytes` (and no swap beyond it) where given, after
    /// removing the empty groups of hosts that are gone. `nil` when neither is asked for or no
    /// root offers them.
    static func make(
        in roots: Roots,
        maximumTasks: UInt64?,
        memoryBytes: UInt64?
    ) throws(SystemError) -> ProcessCgroup? {
        let name = "appex.\(getpid()).\(sequence.add(1, ordering: .relaxed).newValue)"
        var settings: [String: [(file: String, value: UInt64, optional: Bool)]] = [:]
        var memoryEvents: String?
        if let maximumTasks, let root = roots.pids {
            settings[root, default: []].append(("pids.max", maximumTasks, false))
        }
        if let memoryBytes, let root = roots.memory {
            let path = root + "/" + name
            if root.hasSuffix("/memory") {  // v1: the limit, then memory and swap together
                settings[root, default: []] += [
                    ("memory.limit_in_bytes", memoryBytes, false),
                    ("memory.memsw.limit_in_bytes", memoryBytes, true),
                ]
                memoryEvents = path + "/memory.oom_control"
            } else {
                settings[root, default: []] += [
                    ("memory.max", memoryBytes, false), ("memory.swap.max", 0, true), ("memory.oom.group", 1, true),
                ]
                memoryEvents = path + "/memory.events"
            }
        }
        guard !settings.isEmpty else { return nil }
        var paths: [String] = []
        var procs: [OwnedDescriptor] = []
        do throws(SystemError) {
            for (root, files) in settings.sorted(by: { $0.key < $1.key }) {
                sweep(root)
                let path = root + "/" + name
                _ = try syscall("mkdir(\(path))") { mkdir(path, 0o700) }
                paths.append(path)
                for (file, value, optional) in files {
                    do { try setValue("\(value)\n", in: path + "/" + file) } catch {
                        if optional && (error.errno == .noSuchFileOrDirectory || error.errno == .invalidArgument) {
                            continue  // no swap accounting, an older kernel
                        }
                        throw error
                    }
                }
                let fd = try syscall("open(\(path)/cgroup.procs)") {
                    open(path + "/cgroup.procs", O_WRONLY | O_CLOEXEC)
                }
                procs.append(OwnedDescriptor(taking: fd))
            }
        } catch {
            for path in paths { rmdir(path) }
            throw error
        }
        return ProcessCgroup(paths: paths, procs: procs, memoryEvents: memoryEvents)
    }

    private static func setValue(_ text: String, in path: String) throws(SystemError) {
        let fd = try syscall("open(\(path))") { open(path, O_WRONLY | O_CLOEXEC) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        _ = try syscall("write(\(path))") { write(fd, bytes, bytes.count) }
    }

    /// How many processes the kernel's OOM killer ended in the memory group because it reached
    /// its limit (`oom_kill` of its events); 0 without a memory group.
    package var memoryLimitKills: Int {
        guard let memoryEvents, let bytes = try? Syscalls.readFile(memoryEvents, limit: 4096) else { return 0 }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == "oom_kill", let count = Int(words[1]) { return count }
        }
        return 0
    }

    /// Deletes the groups (they must be empty: the process ended and was reaped); quietly leaves
    /// one that something still runs in (a later sweep takes it).
    package func remove() {
        for path in paths { _ = rmdir(path) }
    }

    /// Removes `appex.<pid>.*` groups whose host process is gone (best effort: a group still
    /// holding processes stays).
    private static func sweep(_ root: String) {
        guard let names = try? Syscalls.directoryEntries(root) else { return }
        for name in names where name.hasPrefix("appex.") {
            let parts = name.split(separator: ".")
            guard parts.count == 3, let pid = Int32(parts[1]), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { _ = rmdir(root + "/" + name) }
        }
    }
}
