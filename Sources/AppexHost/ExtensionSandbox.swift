package import AppexCore
package import AppexSystem
package import AppexVocabulary

/// The sandbox an extension runs in, derived from its entitlements and its point: the App
/// Sandbox's analog (docs/decisions/0099-the-sandbox.md; docs/threat-model.md, "Tiers").
///
/// By default an extension reads its bundle and the system's libraries and certificates, reads
/// and writes its own container and the app groups it is entitled to, and nothing else (not
/// `$HOME`, not other groups, not the registry, not the keychain's files or keys); it connects to
/// the network only with `com.apple.security.network.client` and listens only with
/// `…network.server`; it runs no program outside its bundle unless its point's `AppexSandbox`
/// allows helper processes; it is process 1 of its own PID namespace, with a `/proc` of its own;
/// and it runs within the point's resource limits, or the defaults (``defaultLimits(widget:)``).
/// Enhanced security (`EXRequiresEnhancedSecurity`) adds no network unless the point allows it, a
/// seal checked at every launch (the executable hashed again unless proven unchanged since it
/// last ran: docs/decisions/0003-the-seal.md), and refuses to launch where the
/// kernel lacks a facility.
package struct ExtensionSandbox: Sendable {
    /// The profile the launcher applies.
    package var profile: SandboxProfile
    /// The extension's own container (`$APPEX_HOME/Containers/<bundle id>`), its `HOME`.
    package var container: String
    /// Its temporary directory (`<container>/tmp`), its `TMPDIR`.
    package var temporaryDirectory: String
    /// The directories the launcher must create before the spawn (a rule needs its path).
    package var directories: [String]

    /// The sandbox of the extension at `bundlePath` with `entitlements`, of the point
    /// `extensionPoint`, declared as `point` (`nil`: a point its host does not declare here, such
    /// as the widget host's), working in `workingDirectory`.
    ///
    /// A script's `interpreter` (its `#!` program) is part of its executable: it may run.
    package init(
        bundleIdentifier: String,
        bundlePath: String,
        entitlements: Entitlements,
        extensionPoint: ExtensionPointIdentifier,
        point: ExtensionPointDeclaration?,
        environment: AppexEnvironment,
        workingDirectory: String,
        interpreter: String? = nil
    ) {
        let settings = point?.sandbox ?? ExtensionPointDeclaration.SandboxSettings()
        let enhanced = point?.requiresEnhancedSecurity ?? false
        container = environment.home + "/Containers/" + bundleIdentifier
        temporaryDirectory = container + "/tmp"
        var profile = SandboxProfile()
        let system: SandboxProfile.Access = settings.allowsHelperProcesses ? .readExecute : .read
        profile.rules.append(.init(bundlePath, .readExecute, "its bundle"))
        for path in ["/usr", "/lib", "/lib64", "/lib32", "/bin"] {
            profile.rules.append(.init(path, system, "the system's programs and libraries"))
        }
        for path in Self.runtimeDirectories {
            profile.rules.append(.init(path, system, "the Swift runtime"))
        }
        if let interpreter {
            profile.rules.append(.init(interpreter, .readExecute, "its script's interpreter"))
        }
        if let loader = Self.dynamicLoader {
            profile.rules.append(.init(loader, .readExecute, "the dynamic loader"))
        }
        for path in Self.systemConfiguration {
            profile.rules.append(.init(path, .read, "system configuration"))
        }
        // All of /proc, not only /proc/self: libdispatch reads its worker threads' /proc/<tid>/stat,
        // which lies outside /proc/self. Another process's environ, memory or maps stay out of
        // reach: Landlock refuses ptrace-mode access to any process outside the sandbox's domain.
        profile.rules.append(.init("/proc", .read, "process information (libdispatch's thread monitor)"))
        for path in ["/dev/urandom", "/dev/random", "/dev/zero", "/sys/devices/system/cpu"] {
            profile.rules.append(.init(path, .read, "devices"))
        }
        profile.rules.append(.init("/dev/null", .readWrite, "devices"))
        var directories = [container, temporaryDirectory, workingDirectory]
        profile.rules.append(.init(container, .readWrite, "its container"))
        if workingDirectory != container {
            profile.rules.append(.init(workingDirectory, .readWrite, "its working directory"))
        }
        for group in entitlements.applicationGroups where Self.isPlainName(group) {
            let path = environment.home + "/AppGroups/" + group
            directories.append(path)
            profile.rules.append(.init(path, .readWrite, "app group \(group)"))
        }
        self.directories = directories
        let entitled = entitlements.values
        let client = entitled[Entitlements.Key.networkClient] == .boolean(true)
        let server = entitled[Entitlements.Key.networkServer] == .boolean(true)
        if enhanced && !settings.allowsNetwork {
            profile.network = .none
        } else {
            profile.network = server ? .clientAndServer : client ? .client : .none
        }
        profile.allowsHelperProcesses = settings.allowsHelperProcesses
        // Each limit the point declares, else the default of its kind (AppexHost's article "Running extensions in the sandbox").
        let declared = point?.resourceLimits ?? ExtensionPointDeclaration.ResourceLimits()
        let defaults = Self.defaultLimits(widget: extensionPoint.isSystemPoint)
        profile.memoryBytes = declared.memoryBytes ?? defaults.memoryBytes
        profile.openFiles = declared.openFiles
        profile.cpuSeconds = declared.cpuSeconds ?? defaults.cpuSeconds
        profile.processes = declared.processes
        profile.maximumTasks = declared.processes ?? defaults.processes
        profile.isolatesNamespaces = enhanced
        profile.isRequired = settings.isRequired
        self.profile = profile
    }

    /// The limits of a point that declares none: 512 MiB of memory and 30 s of CPU per call for
    /// an extension, 128 MiB and 5 s per timeline request for a widget (WidgetKit gives a
    /// widget about 30 MB on iOS; a Swift process on Linux maps Foundation and its ICU data), and
    /// at most 1,024 tasks (processes and threads) for either. No limit on open files.
    package static func defaultLimits(widget: Bool) -> ExtensionPointDeclaration.ResourceLimits {
        ExtensionPointDeclaration.ResourceLimits(
            memoryBytes: widget ? 128 << 20 : 512 << 20,
            cpuSeconds: widget ? 5 : 30,
            processes: 1024
        )
    }

    /// Files and folders of `/etc` a program needs to load libraries, resolve names, read the
    /// time zone and trust certificates; nothing else of `/etc` (not `shadow`, not `sudoers`).
    static let systemConfiguration = [
        "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone",
        "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf",
        "/etc/services", "/etc/protocols", "/etc/passwd", "/etc/group", "/etc/ssl", "/etc/ca-certificates",
        "/etc/ca-certificates.conf", "/etc/pki", "/etc/crypto-policies", "/etc/gnutls", "/etc/pkcs11",
        "/etc/mime.types",
    ]

    /// A group name that is one plain path component (AppGroup refuses others when opened).
    private static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".." && !name.hasPrefix(".")
    }

    /// The directories of the Swift runtime this host runs on (the extensions of a machine are
    /// built with its toolchain): where `libswiftCore.so` and Foundation are mapped.
    static let runtimeDirectories: [String] = {
        var directories: [String] = []
        for path in mappedFiles {
            guard path.hasSuffix("/libswiftCore.so") || path.hasSuffix("/libFoundation.so") else { continue }
            let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
            if !directory.isEmpty && !directories.contains(directory) { directories.append(directory) }
        }
        return directories
    }()

    /// The dynamic loader this host was loaded by (its real path).
    static let dynamicLoader: String? = mappedFiles.first { $0.contains("/ld-linux") || $0.contains("/ld-musl") }

    /// The files mapped when first asked: the libraries and loader are mapped at start and stay,
    /// so `/proc/self/maps` is read once per process, not at every launch.
    private static let mappedFiles = ProcessControl.mappedFiles()

    /// What the sandbox allows, a line each, for `appex doctor`.
    package var lines: [String] {
        var lines = profile.rules.map { "\($0.access.rawValue): \($0.path) (\($0.reason))" }
        lines.append("network: \(profile.network.rawValue)")
        lines.append(
            "sockets: internet streams and datagrams as the network allows, and Unix socket pairs; no Unix (pathname or abstract), netlink, packet or raw socket (EPERM): only the connections its host gives it"
        )
        lines.append(
            "processes: only its own (process 1 of its own PID namespace, with a /proc of its own): no other process's command line, status or environment"
        )
        lines.append("helper processes: \(profile.allowsHelperProcesses ? "allowed" : "refused")")
        if let tasks = profile.maximumTasks { lines.append("tasks (processes and threads): at most \(tasks)") }
        if let bytes = profile.memoryBytes {
            lines.append(
                "memory: at most \(bytes >> 20) MiB (ended past it: memory-limit)"
            )
        }
        if let files = profile.openFiles { lines.append("open files: at most \(files)") }
        if let seconds = profile.cpuSeconds {
            lines.append("CPU time: at most \(seconds) s per call (ended past it: cpu-limit)")
        }
        if profile.isolatesNamespaces {
            lines.append(
                "enhanced security: a private /tmp, the seal verified at every launch, the executable hashed again unless proven unchanged since it last ran"
            )
            lines.append(
                "seccomp: an allowlist (files, memory, threads, signals, time, sockets); every other call refused (EPERM)"
            )
        } else {
            lines.append(
                "seccomp: ptrace, mount, keyctl, bpf, perf_event_open, kexec, module loading and new namespaces refused (EPERM)"
            )
        }
        return lines
    }
}

extension ExtensionDiscovery {
    /// What `appex doctor` says of the sandbox the extension `bundleIdentifier` would run in:
    /// a line per rule and limit, then what this kernel offers and lacks; `nil` when no bundle of
    /// that identifier was found.
    package func sandboxLines(bundleIdentifier: String) throws(AppexError) -> [String]? {
        guard let found = try snapshot().extensions.first(where: { $0.bundleIdentifier == bundleIdentifier }) else {
            return nil
        }
        let bundle = currentBundle(at: found.path) ?? AppexBundle.load(at: found.path, as: .appExtension)
        let point = try host().extensionPoints.first { $0.identifier.description == found.extensionPoint }
        let sandbox = ExtensionSandbox(
            bundleIdentifier: bundleIdentifier,
            bundlePath: found.path,
            entitlements: bundle.entitlements,
            extensionPoint: found.extensionPoint.flatMap(ExtensionPointIdentifier.init)
                ?? ExtensionPointIdentifier(host: "", name: ""),
            point: point,
            environment: environment,
            workingDirectory: environment.home + "/ExtensionData/" + bundleIdentifier
        )
        let facilities = Sandbox.facilities
        var lines = sandbox.lines
        var kernel = ["Landlock ABI \(facilities.landlockABI)"]
        kernel.append(facilities.seccomp ? "seccomp" : "no seccomp")
        kernel.append(facilities.cgroups.pids.map { "pids cgroups in \($0)" } ?? "no writable pids cgroup")
        kernel.append(facilities.cgroups.memory.map { "memory cgroups in \($0)" } ?? "no writable memory cgroup")
        kernel.append(facilities.userNamespaces ? "user namespaces" : "no user namespaces")
        kernel.append(facilities.privateProcessFileSystem ? "a /proc per PID namespace" : "no /proc per PID namespace")
        lines.append("kernel: " + kernel.joined(separator: ", "))
        if facilities.landlockABI == 0 || !facilities.seccomp {
            lines.append(
                sandbox.profile.isRequired
                    ? "this kernel cannot give the sandbox its point requires: launches are refused (sandbox-unavailable)"
                    : "this kernel lacks part of the sandbox: launches go ahead with a warning"
            )
        }
        return lines
    }
}
