import CAppexSystem
import SystemPackage

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The kernel's confinement facilities, and the sandboxed spawn that applies a
/// ``SandboxProfile``: Landlock (paths, TCP ports, scopes), `no_new_privs`, a seccomp filter,
/// resource limits, a pids cgroup, and for enhanced security user, mount and PID namespaces with
/// a private `/tmp`.
package enum Sandbox {
    /// What this kernel offers.
    package struct Facilities: Sendable, Hashable {
        /// Landlock's ABI version; 0 without Landlock.
        package var landlockABI: Int
        /// Whether seccomp filters can be installed.
        package var seccomp: Bool
        /// Whether new user, mount and PID namespaces can be made (tried once, in a throwaway child).
        package var userNamespaces: Bool
        /// Whether a `/proc` of a new PID namespace can be mounted in them: the process then sees
        /// no other process. The kernel refuses it where the outer `/proc` is partly masked (a
        /// container's masked paths).
        package var privateProcessFileSystem: Bool
        /// The cgroup hierarchies the launcher makes per-process pids and memory groups in.
        package var cgroups: ProcessCgroup.Roots
        /// Whether this process runs as root (whose capabilities the sandbox drops).
        package var isRoot: Bool
    }

    /// Probed once per process.
    package static let facilities: Facilities = probe()

    private static func probe() -> Facilities {
        let seccomp = cappex_seccomp_available() != 0
        // Tried, not read from sysctls: AppArmor (Ubuntu 24.04) or a container's policy may refuse
        // what max_user_namespaces allows.
        let namespaces = cappex_probe_namespaces()
        return Facilities(
            landlockABI: Int(cappex_landlock_abi()),
            seccomp: seccomp,
            userNamespaces: namespaces & CAPPEX_PROBE_USER_NAMESPACES != 0,
            privateProcessFileSystem: namespaces & CAPPEX_PROBE_PRIVATE_PROC != 0,
            cgroups: ProcessCgroup.roots(),
            isRoot: geteuid() == 0
        )
    }

    // MARK: - Landlock's rights

    private static let execute: UInt64 = 1 << 0
    private static let writeFile: UInt64 = 1 << 1
    private static let readFile: UInt64 = 1 << 2
    private static let readDirectory: UInt64 = 1 << 3
    private static let truncate: UInt64 = 1 << 14
    private static let ioctlDevice: UInt64 = 1 << 15
    private static let bindTCP: UInt64 = 1 << 0
    private static let connectTCP: UInt64 = 1 << 1

    /// Every file-system right `abi` knows.
    private static func handledFileSystem(_ abi: Int) -> UInt64 {
        var rights: UInt64 = (1 << 13) - 1  // ABI 1: execute … make_sym
        if abi >= 2 { rights |= 1 << 13 }  // refer
        if abi >= 3 { rights |= truncate }
        if abi >= 5 { rights |= ioctlDevice }
        return rights
    }

    /// The rights `access` grants under `abi`; only file rights on a file.
    private static func rights(_ access: SandboxProfile.Access, abi: Int, directory: Bool) -> UInt64 {
        let all = handledFileSystem(abi)
        var rights: UInt64
        switch access {
        case .read: rights = readFile | readDirectory
        case .readExecute: rights = readFile | readDirectory | execute
        case .readWrite:
            // Everything but executing and making device nodes.
            rights = all & ~(execute | (1 << 6) | (1 << 11))
        }
        if !directory { rights &= execute | writeFile | readFile | truncate | ioctlDevice }
        return rights & all
    }

    // MARK: - Preparing

    /// A profile made concrete for one spawn: the ruleset, the cgroup, the flags, and what the
    /// kernel lacks.
    package final class Prepared: Sendable {
        let ruleset: OwnedDescriptor?
        let seccompFlags: Int32
        let limits: [(Int32, UInt64)]
        let namespaces: Int32
        let privateTemporary: Bool
        /// Whether the child mounts a `/proc` of its PID namespace.
        let privateProcess: Bool
        /// The Landlock rights on the private `/tmp` and `/proc` (their inodes exist only in the
        /// child, which adds the rules itself).
        let temporaryAccess: UInt64
        let processAccess: UInt64
        /// The paths under `/tmp` the process needs, bound into its private `/tmp` (read-only
        /// when it may only read them).
        let temporaryKeeps: [(path: String, readOnly: Bool)]
        let dropsRoot: Bool
        /// Whether the child gets a PID namespace of its own, where it is process 1.
        package var hasOwnProcessNamespace: Bool { namespaces & CAPPEX_NAMESPACE_PID != 0 }
        /// The cgroups the child joins (pids and memory), removed once it ended.
        package let cgroup: ProcessCgroup?
        /// What the kernel lacks for this profile, one phrase each ("Landlock (file-system
        /// rules)"); empty when the profile applies whole.
        package let missing: [String]

        init(
            ruleset: OwnedDescriptor?,
            seccompFlags: Int32,
            limits: [(Int32, UInt64)],
            namespaces: Int32,
            privateTemporary: Bool,
            privateProcess: Bool,
            temporaryAccess: UInt64,
            processAccess: UInt64,
            temporaryKeeps: [(path: String, readOnly: Bool)],
            dropsRoot: Bool,
            cgroup: ProcessCgroup?,
            missing: [String]
        ) {
            self.ruleset = ruleset
            self.seccompFlags = seccompFlags
            self.limits = limits
            self.namespaces = namespaces
            self.privateTemporary = privateTemporary
            self.privateProcess = privateProcess
            self.temporaryAccess = temporaryAccess
            self.processAccess = processAccess
            self.temporaryKeeps = temporaryKeeps
            self.dropsRoot = dropsRoot
            self.cgroup = cgroup
            self.missing = missing
        }
    }

    /// Builds what `profile` needs in the kernel: a Landlock ruleset with its rules (paths that do
    /// not exist are skipped), a pids cgroup, the seccomp flags.
    ///
    /// - Throws: ``SystemError`` when a facility the kernel has fails.
    package static func prepare(_ profile: SandboxProfile) throws(SystemError) -> Prepared {
        let facilities = Self.facilities
        let abi = facilities.landlockABI
        var missing: [String] = []
        var ruleset: OwnedDescriptor?
        if abi > 0 {
            var handledNetwork: UInt64 = 0
            if abi >= 4 {
                switch profile.network {
                case .none: handledNetwork = bindTCP | connectTCP
                case .client: handledNetwork = bindTCP
                case .clientAndServer: handledNetwork = 0
                }
            }
            let scoped: UInt64 = abi >= 6 ? 0b11 : 0  // abstract Unix sockets, signals
            let raw = try syscall("landlock_create_ruleset") {
                cappex_landlock_ruleset(Int32(abi), handledFileSystem(abi), handledNetwork, scoped)
            }
            let descriptor = OwnedDescriptor(taking: raw)
            for rule in profile.rules {
                // One lookup per rule; a path absent here has nothing to allow.
                let file = rights(rule.access, abi: abi, directory: false)
                let directory = rights(rule.access, abi: abi, directory: true)
                _ = try syscall("landlock_add_rule(\(rule.path))") {
                    cappex_landlock_allow_existing(raw, rule.path, file, directory)
                }
            }
            ruleset = descriptor
            if abi < 4 && profile.network != .clientAndServer {
                missing.append(
                    "Landlock's TCP rules (ABI 4; this kernel has \(abi)): internet sockets are refused by seccomp instead"
                )
            }
            if abi < 6 {
                missing.append("Landlock's signal and abstract-socket scopes (ABI 6; this kernel has \(abi))")
            }
        } else {
            missing.append("Landlock (file-system and network rules)")
        }
        var seccompFlags: Int32 = 0
        if facilities.seccomp {
            seccompFlags = CAPPEX_SECCOMP_BASE
            if profile.isolatesNamespaces {
                // Enhanced: the allowlist, and without network no internet socket at all.
                seccompFlags |= CAPPEX_SECCOMP_ALLOWLIST
                if profile.network == .none { seccompFlags |= CAPPEX_SECCOMP_NO_INET }
            } else if profile.network == .none {
                seccompFlags |= abi >= 4 ? CAPPEX_SECCOMP_NO_INET_DATAGRAM : CAPPEX_SECCOMP_NO_INET
            }
        } else {
            missing.append("seccomp filters")
        }
        var limits: [(Int32, UInt64)] = []
        let memoryByAddressSpace = facilities.cgroups.memory == nil || profile.limitsMemoryByAddressSpace
        if let value = profile.memoryBytes, memoryByAddressSpace {
            // No memory group: the address space instead, with room for what a Swift process
            // maps but does not use (docs/decisions/0129-resource-limits-by-default.md).
            limits.append((0, value + SandboxProfile.addressSpaceReserve))
            if !profile.limitsMemoryByAddressSpace {
                missing.append(
                    "a writable memory cgroup (the memory limit then holds as RLIMIT_AS, its limit plus \(SandboxProfile.addressSpaceReserve >> 20) MiB: an allocation past it fails, and a process that crashes of it is reported as crashed, not memory-limit)"
                )
            }
        }
        if let value = profile.openFiles { limits.append((1, value)) }
        if let value = profile.processes { limits.append((3, value)) }
        if profile.maximumTasks != nil && facilities.cgroups.pids == nil {
            missing.append(
                "a writable pids cgroup (the process limit then holds only through RLIMIT_NPROC, which root ignores)"
            )
        }
        let cgroup = ProcessCgroup.make(
            in: facilities.cgroups,
            maximumTasks: profile.maximumTasks,
            memoryBytes: memoryByAddressSpace ? nil : profile.memoryBytes
        )
        // Both tiers: a PID namespace with its own /proc, so no other process can be seen. Enhanced
        // security takes the namespaces for its private /tmp even where /proc cannot be mounted.
        var namespaces: Int32 = 0
        let all = CAPPEX_NAMESPACE_USER | CAPPEX_NAMESPACE_MOUNT | CAPPEX_NAMESPACE_PID
        if profile.isolatesNamespaces {
            if facilities.userNamespaces {
                namespaces = all
            } else {
                missing.append("user namespaces (no private /tmp or /proc, no mount or PID namespace)")
            }
        } else if facilities.privateProcessFileSystem {
            namespaces = all
        }
        if !facilities.privateProcessFileSystem && (namespaces != 0 || !profile.isolatesNamespaces) {
            missing.append(
                facilities.userNamespaces
                    ? "a /proc of its own (this kernel refuses to mount one where the outer /proc is partly masked): other processes' command lines stay readable"
                    : "user namespaces (no /proc of its own): other processes' command lines stay readable"
            )
        }
        return Prepared(
            ruleset: ruleset,
            seccompFlags: seccompFlags,
            limits: limits,
            namespaces: namespaces,
            privateTemporary: namespaces != 0 && profile.isolatesNamespaces,
            privateProcess: namespaces != 0 && facilities.privateProcessFileSystem,
            temporaryAccess: abi > 0 ? rights(.readWrite, abi: abi, directory: true) : 0,
            processAccess: abi > 0 ? rights(.read, abi: abi, directory: true) : 0,
            temporaryKeeps: namespaces != 0 && profile.isolatesNamespaces ? temporaryKeeps(profile.rules) : [],
            dropsRoot: facilities.isRoot,
            cgroup: cgroup,
            missing: missing
        )
    }

    /// The rules' paths that lie under `/tmp` (links resolved), outermost only: a private
    /// `/tmp` would hide them, so the child binds them back in.
    private static func temporaryKeeps(_ rules: [SandboxProfile.Rule]) -> [(path: String, readOnly: Bool)] {
        var keeps: [(path: String, readOnly: Bool)] = []
        for rule in rules {
            guard let path = try? Syscalls.realPath(rule.path), path.hasPrefix("/tmp/") else { continue }
            keeps.append((path, rule.access != .readWrite))
        }
        keeps.sort { $0.path.count < $1.path.count }
        var outermost: [(path: String, readOnly: Bool)] = []
        for keep in keeps
        where !outermost.contains(where: { keep.path.hasPrefix($0.path + "/") || keep.path == $0.path }) {
            outermost.append(keep)
        }
        return Array(outermost.prefix(16))
    }

    // MARK: - Spawning

    /// The call a failed step names.
    fileprivate static func stepName(_ step: Int32) -> String {
        switch step {
        case CAPPEX_STEP_CLONE: "clone"
        case CAPPEX_STEP_SIGNALS: "sigprocmask"
        case CAPPEX_STEP_PROCESS_GROUP: "setpgid"
        case CAPPEX_STEP_USER_NAMESPACE: "write(/proc/self/uid_map)"
        case CAPPEX_STEP_MOUNT: "mount(/, MS_PRIVATE)"
        case CAPPEX_STEP_PRIVATE_TMP: "mount(tmpfs, /tmp)"
        case CAPPEX_STEP_CGROUP: "write(cgroup.procs)"
        case CAPPEX_STEP_LIMITS: "setrlimit"
        case CAPPEX_STEP_DIRECTORY: "chdir"
        case CAPPEX_STEP_DESCRIPTORS: "dup2"
        case CAPPEX_STEP_NO_NEW_PRIVS: "prctl(PR_SET_NO_NEW_PRIVS)"
        case CAPPEX_STEP_DROP_ROOT: "prctl(PR_SET_SECUREBITS)"
        case CAPPEX_STEP_LANDLOCK: "landlock_restrict_self"
        case CAPPEX_STEP_SECCOMP: "seccomp(SECCOMP_SET_MODE_FILTER)"
        case CAPPEX_STEP_EXEC: "execveat"
        default: "spawn"
        }
    }
}

/// One spawn: `executable` (opened and verified by the caller) confined by `sandbox` (`nil`:
/// unconfined), run on the spawner thread (``SpawnerThread``: the parent-death signal follows
/// the spawning thread); `inherited` become descriptors 3, 4, …, `output` 1 and `errorOutput` 2 (-1: /dev/null).
package struct SandboxedSpawn: Sendable {
    package var executable: OpenedExecutable
    package var arguments: [String]
    package var environment: [String]
    package var inherited: [Int32]
    package var output: Int32
    /// Standard error; `nil`: the same as ``output``.
    package var errorOutput: Int32?
    package var workingDirectory: String
    package var sandbox: Sandbox.Prepared?

    package init(
        executable: OpenedExecutable,
        arguments: [String],
        environment: [String],
        inherited: [Int32],
        output: Int32,
        errorOutput: Int32? = nil,
        workingDirectory: String,
        sandbox: Sandbox.Prepared?
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.inherited = inherited
        self.output = output
        self.errorOutput = errorOutput
        self.workingDirectory = workingDirectory
        self.sandbox = sandbox
    }

    /// Spawns it, holding no thread while the spawner thread works.
    ///
    /// - Returns: the child's pid.
    /// - Throws: ``SystemError`` naming the step that failed (`landlock_restrict_self`, …).
    package func run() async throws(SystemError) -> Int32 {
        let spawn = self
        return try await SpawnerThread.shared.run({ spawn.spawnHere() }, afterwards: { spawn.settle($0) }).get()
    }

    /// As the async ``run()``, waiting on this thread.
    @available(*, noasync, message: "waits for the spawner thread; use the async run()")
    package func runWaiting() throws(SystemError) -> Int32 {
        let spawn = self
        return try SpawnerThread.shared.run({ spawn.spawnHere() }, afterwards: { spawn.settle($0) }).get()
    }

    /// After the spawn, on the spawner thread: its cgroups' reserve for the next one.
    private func settle(_ outcome: Result<Int32, SystemError>) {
        // A failed spawn has no child (0), but may have taken the reserve: settle it all the same.
        ProcessCgroup.settleSpawn(of: sandbox?.cgroup, child: (try? outcome.get()) ?? 0)
    }

    /// The C spawn, on the calling thread: the pid, or what failed.
    private func spawnHere() -> Result<Int32, SystemError> {
        let prepared = sandbox
        let procs: [OwnedDescriptor]
        do { procs = try ProcessCgroup.prepareSpawn(of: prepared?.cgroup) } catch { return .failure(error) }
        var pid: pid_t = 0
        var step: Int32 = 0
        var plan = cappex_sandbox()
        plan.landlock_ruleset = -1
        plan.cgroup_procs = (-1, -1)
        if let prepared {
            plan.landlock_ruleset = prepared.ruleset?.rawValue ?? -1
            plan.seccomp = prepared.seccompFlags
            plan.no_new_privs = 1
            plan.drop_root = prepared.dropsRoot ? 1 : 0
            plan.cgroup_procs = (procs.first?.rawValue ?? -1, procs.dropFirst().first?.rawValue ?? -1)
            plan.namespaces = prepared.namespaces
            plan.private_tmp = prepared.privateTemporary ? 1 : 0
            plan.private_proc = prepared.privateProcess ? 1 : 0
            plan.tmp_access = prepared.temporaryAccess
            plan.proc_access = prepared.processAccess
            plan.outer_uid = getuid()
            plan.outer_gid = getgid()
            let limits = prepared.limits.prefix(4)
            plan.limit_count = Int32(limits.count)
            withUnsafeMutableBytes(of: &plan.limit_resource) { resources in
                withUnsafeMutableBytes(of: &plan.limit_value) { values in
                    for (index, (resource, value)) in limits.enumerated() {
                        resources.storeBytes(of: resource, toByteOffset: index * 4, as: Int32.self)
                        values.storeBytes(of: value, toByteOffset: index * 8, as: UInt64.self)
                    }
                }
            }
        }
        let keeps = prepared?.temporaryKeeps ?? []
        let result = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in
                withCStrings(keeps.map(\.path)) { keptPaths in
                    inherited.withUnsafeBufferPointer { fds in
                        keeps.map { $0.readOnly ? Int32(1) : 0 }.withUnsafeBufferPointer { readOnly in
                            keptPaths.withUnsafeBufferPointer { paths in
                                paths.withMemoryRebound(to: UnsafePointer<CChar>?.self) { paths in
                                    plan.tmp_keep = paths.baseAddress
                                    plan.tmp_keep_read_only = readOnly.baseAddress
                                    plan.tmp_keep_count = Int32(keeps.count)
                                    return withUnsafePointer(to: plan) { sandbox in
                                        cappex_spawn_sandboxed(
                                            executable.descriptor.rawValue,
                                            executable.isScript ? 1 : 0,
                                            argv,
                                            envp,
                                            fds.baseAddress,
                                            Int32(fds.count),
                                            output,
                                            errorOutput ?? output,
                                            workingDirectory,
                                            prepared == nil ? nil : sandbox,
                                            &pid,
                                            &step
                                        )
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        withExtendedLifetime(procs) {}  // the child wrote to them before exec
        guard result == 0 else {
            // The call and what it was given: the working directory for chdir, else the executable.
            let subject = step == CAPPEX_STEP_DIRECTORY ? workingDirectory : executable.path
            return .failure(SystemError(Sandbox.stepName(step) + "(\(subject))", Errno(rawValue: result)))
        }
        return .success(pid)
    }
}
