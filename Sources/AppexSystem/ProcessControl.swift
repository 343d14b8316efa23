// Child processes and this process: spawn, pidfds, signals, reaping, resource limits, the
// parent-death signal.
import CAppexSystem

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Signals Appex sends.
package enum Signal {
    /// `SIGKILL`.
    package static let kill = SIGKILL
}

/// A resource limit that ends a sandboxed process that crosses it, by the name errors and logs
/// give it.
package enum ExceededLimit: String, Sendable, Hashable {
    /// Its memory cgroup's limit: the kernel's OOM killer ended it there.
    case memory = "memory-limit"
    /// The CPU time one call may use: its host ended it.
    case cpu = "cpu-limit"
}

/// How a child ended, from its `waitpid` status.
package struct ExitStatus: Hashable, Sendable, CustomStringConvertible {
    /// The raw `waitpid` status.
    package let rawValue: Int32
    /// The resource limit that ended it, when one is known to have.
    package var exceededLimit: ExceededLimit?

    package init(rawValue: Int32, exceededLimit: ExceededLimit? = nil) {
        self.rawValue = rawValue
        self.exceededLimit = exceededLimit
    }

    /// The signal that killed it, or `nil` when it exited.
    package var signal: Int32? {
        let signal = rawValue & 0x7f
        return signal == 0 ? nil : signal
    }

    /// `"exit status 3"`, `"killed by signal 9"` or `"killed by signal 9 past its memory limit
    /// (memory-limit)"`.
    package var description: String {
        if let exceededLimit {
            let which = exceededLimit == .memory ? "memory limit" : "CPU time per call"
            return "killed by signal \(signal ?? 0) past its \(which) (\(exceededLimit.rawValue))"
        }
        if let signal { return "killed by signal \(signal)" }
        return "exit status \((rawValue >> 8) & 0xff)"
    }
}

/// This process and its children.
package enum ProcessControl {
    /// This process's id.
    package static var processIdentifier: Int32 { getpid() }
    /// The parent's id.
    package static var parentProcessIdentifier: Int32 { getppid() }
    /// The real user id.
    package static var userIdentifier: UInt32 { getuid() }

    /// A pidfd of `pid` (`pidfd_open`), or `nil` where the kernel has none: signals through it can
    /// never reach another process that reused the pid after the child was reaped.
    package static func openPidfd(_ pid: Int32) -> OwnedDescriptor? {
        let raw = cappex_pidfd_open(pid)
        return raw >= 0 ? OwnedDescriptor(taking: raw) : nil
    }

    /// Sends `signal` to exactly the process `pidfd` names (ESRCH once it is gone: ignored).
    package static func signal(_ signal: Int32, through pidfd: OwnedDescriptor) {
        _ = cappex_pidfd_send_signal(pidfd.rawValue, signal)
    }

    /// Sends `signal` to `pid` (or, negative, to its process group). Only safe while the child
    /// is not reaped: after that the pid may name another process.
    package static func signal(_ signal: Int32, toProcess pid: Int32) {
        _ = kill(pid, signal)
    }

    /// The resident memory of process `pid` in bytes (its pages in RAM, shared ones included,
    /// from `/proc/PID/statm`); `nil` when it is gone or cannot be read.
    package static func residentBytes(of pid: Int32) -> UInt64? {
        guard let bytes = try? Syscalls.readFile("/proc/\(pid)/statm", limit: 256) else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return nil }
        return pages * UInt64(max(1, sysconf(Int32(_SC_PAGESIZE))))
    }

    /// The CPU time `pid` (a process, all its threads) has used so far; `nil` once it is gone.
    package static func cpuTime(of pid: Int32) -> Duration? {
        var clock = clockid_t()
        guard clock_getcpuclockid(pid, &clock) == 0 else { return nil }
        var time = timespec()
        guard clock_gettime(clock, &time) == 0 else { return nil }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// Waits for `pid` to end and reaps it (blocking).
    package static func waitForExit(of pid: Int32) -> ExitStatus? {
        var status: Int32 = 0
        guard (try? syscall("waitpid") { waitpid(pid, &status, 0) }) != nil else { return nil }
        return ExitStatus(rawValue: status)
    }

    /// Reaps `pid` if it has ended, without waiting: `nil` while it runs.
    package static func reapIfEnded(_ pid: Int32) -> ExitStatus? {
        var status: Int32 = 0
        guard let reaped = try? syscall("waitpid", { waitpid(pid, &status, WNOHANG) }), reaped == pid else {
            return nil
        }
        return ExitStatus(rawValue: status)
    }

    /// Asks the kernel to send `signal` to this process when its parent (thread) ends
    /// (`PR_SET_PDEATHSIG`).
    package static func setParentDeathSignal(_ signal: Int32) throws(SystemError) {
        _ = try syscall("prctl(PR_SET_PDEATHSIG)") { cappex_set_parent_death_signal(signal) }
    }

    /// The value of the environment variable `name` (`getenv`): one lookup, without building
    /// the whole environment as `ProcessInfo.environment` does on its first use.
    package static func environmentVariable(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// Ends this process with `status` as `exit` does: `atexit` handlers run and standard I/O is
    /// flushed first.
    package static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status)
        #elseif canImport(Musl)
        Musl.exit(status)
        #else
        Darwin.exit(status)
        #endif
    }

    /// Ends this process at once with `status`, running no `atexit` handlers (`_exit`).
    package static func exitImmediately(_ status: Int32) -> Never {
        _exit(status)
    }

    /// Sleeps the calling thread (never call it on Swift's cooperative pool).
    package static func sleep(microseconds: UInt32) {
        usleep(microseconds)
    }
}

/// Calls `body` with a NULL-terminated C array of the strings.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}

extension ProcessControl {
    /// Takes over an inherited descriptor (the launch contract's connection): marks it
    /// close-on-exec, so a process the extension starts does not inherit it.
    package static func adoptInheritedDescriptor(_ fd: Int32) throws(SystemError) -> OwnedDescriptor {
        _ = try syscall("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return OwnedDescriptor(taking: fd)
    }
}

extension ProcessControl {
    /// The files mapped into this process (`/proc/self/maps`), each once, in order: where its
    /// libraries and loader are.
    package static func mappedFiles() -> [String] {
        guard let bytes = try? Syscalls.readFile("/proc/self/maps", limit: 4 << 20) else { return [] }
        var seen: Set<String> = []
        var files: [String] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            if seen.insert(path).inserted { files.append(path) }
        }
        return files
    }
}

extension ProcessControl {
    /// A copy of descriptor `target` of the process `pidfd` names (`pidfd_getfd`; needs ptrace
    /// access to it): how the tests play a process that got hold of an extension's broker socket.
    package static func copyDescriptor(
        _ target: Int32,
        of pidfd: OwnedDescriptor
    ) throws(SystemError) -> OwnedDescriptor {
        OwnedDescriptor(taking: try syscall("pidfd_getfd") { cappex_pidfd_getfd(pidfd.rawValue, target) })
    }
}
