/// What a sandboxed process may do, in the kernel's terms: the paths it reaches and how, the
/// network, the system calls, its namespaces and limits. AppexHost derives one per launch from the
/// extension's entitlements and its point; ``Sandbox`` applies it between clone and exec.
package struct SandboxProfile: Sendable, Hashable {
    /// How a path may be used.
    package enum Access: String, Sendable, Hashable, CaseIterable {
        /// Read files and list directories.
        case read
        /// Read and execute (and map as code).
        case readExecute = "read+execute"
        /// Read, write, create, remove, rename.
        case readWrite = "read+write"
    }

    /// One path and what may be done beneath it.
    package struct Rule: Sendable, Hashable {
        package var path: String
        package var access: Access
        /// Why the process gets it, for `appex doctor`: "its bundle", "app group group.x".
        package var reason: String

        package init(_ path: String, _ access: Access, _ reason: String) {
            self.path = path
            self.access = access
            self.reason = reason
        }
    }

    /// The network a process may use.
    package enum Network: String, Sendable, Hashable {
        /// No internet sockets at all (TCP refused by Landlock, others by seccomp).
        case none
        /// Outgoing connections (`com.apple.security.network.client`): no listening.
        case client
        /// Outgoing connections and listening (`…network.server` too).
        case clientAndServer = "client+server"
    }

    /// The paths the process reaches; nothing else.
    package var rules: [Rule] = []
    package var network: Network = .none
    /// Whether it may execute programs beyond its bundle (helper processes).
    package var allowsHelperProcesses = false
    /// The most tasks (processes and threads) it may have at once (a pids cgroup), if any.
    package var maximumTasks: UInt64?
    /// The memory it may be charged for: a memory cgroup's limit, or where the host has none,
    /// `RLIMIT_AS` at this plus ``addressSpaceReserve``.
    package var memoryBytes: UInt64?
    /// Whether the memory limit holds as `RLIMIT_AS` even where a memory cgroup could hold it
    /// (the tests' way to run the fallback on a machine that has cgroups).
    package var limitsMemoryByAddressSpace = false
    /// `RLIMIT_NOFILE`.
    package var openFiles: UInt64?
    /// The CPU time one call may use (enforced by the host, which watches the process's CPU clock).
    package var cpuSeconds: UInt64?
    /// `RLIMIT_NPROC`.
    package var processes: UInt64?

    /// What a memory limit adds when it must hold as an address-space limit: a Swift process
    /// maps far more than it touches (its libraries, 8 MiB per thread's stack, malloc's 64 MiB
    /// arenas). Measured against Appex's own widgets (docs/decisions/0129-resource-limits-by-default.md).
    package static let addressSpaceReserve: UInt64 = 1 << 30
    /// Enhanced security: new user, mount and PID namespaces and a private `/tmp`.
    package var isolatesNamespaces = false
    /// Whether a facility the kernel lacks refuses the launch (instead of a warning).
    package var isRequired = false

    package init() {}
}
