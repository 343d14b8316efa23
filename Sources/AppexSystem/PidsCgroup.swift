import Synchronization

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pids cgroup made for one sandboxed process: `pids.max` bounds its processes and threads
/// together, for root too (where `RLIMIT_NPROC` does not hold). The child joins it before exec;
/// ``remove()`` deletes it once the process ended.
package final class PidsCgroup: Sendable {
    /// The cgroup's directory.
    package let path: String
    /// Its `cgroup.procs`, open for writing: the child writes "0" to join.
    let procs: OwnedDescriptor

    private init(path: String, procs: OwnedDescriptor) {
        self.path = path
        self.procs = procs
    }

    private static let sequence = Atomic<Int>(0)

    /// Where per-process pids cgroups can be made: cgroup v1's pids hierarchy, or cgroup v2's
    /// root when it offers the pids controller to its children; `nil` when neither is writable.
    static func root() -> String? {
        let candidates = ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"]
        for candidate in candidates {
            guard access(candidate + "/cgroup.procs", W_OK) == 0 else { continue }
            if candidate == "/sys/fs/cgroup" {
                // v2: children get the pids controller only if the root hands it down.
                guard let control = try? Syscalls.readFile(candidate + "/cgroup.subtree_control", limit: 4096),
                    String(decoding: control, as: UTF8.self).split(separator: " ").contains(where: {
                        $0.trimmingWhitespace == "pids"
                    })
                else { continue }
            }
            return candidate
        }
        return nil
    }

    /// Makes `root/appex.<pid>.<n>` with `pids.max = maximumTasks`, after removing the empty
    /// groups of hosts that are gone.
    static func make(in root: String, maximumTasks: UInt64) throws(SystemError) -> PidsCgroup {
        sweep(root)
        let name = "appex.\(getpid()).\(sequence.add(1, ordering: .relaxed).newValue)"
        let path = root + "/" + name
        _ = try syscall("mkdir(\(path))") { mkdir(path, 0o700) }
        do {
            let limit = try syscall("open(\(path)/pids.max)") { open(path + "/pids.max", O_WRONLY | O_CLOEXEC) }
            defer { close(limit) }
            let text = Array("\(maximumTasks)\n".utf8)
            _ = try syscall("write(\(path)/pids.max)") { write(limit, text, text.count) }
            let procs = try syscall("open(\(path)/cgroup.procs)") {
                open(path + "/cgroup.procs", O_WRONLY | O_CLOEXEC)
            }
            return PidsCgroup(path: path, procs: OwnedDescriptor(taking: procs))
        } catch {
            rmdir(path)
            throw error
        }
    }

    /// Deletes the group (it must be empty: its process ended and was reaped); quietly does
    /// nothing when something still runs in it (a later sweep takes it).
    package func remove() {
        _ = rmdir(path)
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

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        var text = self
        while let last = text.last, last == "\n" || last == " " { text = text.dropLast() }
        return text
    }
}
