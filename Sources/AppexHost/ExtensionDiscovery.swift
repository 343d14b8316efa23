public import AppexCore
import Dispatch
import Synchronization

/// Finds a host's extensions, validates them, and applies the owner's decisions.
///
/// Search places: the host's own `Extensions/` folder (those extensions ship with the host and
/// are enabled by default) and the folders of ``/AppexCore/AppexEnvironment/extensionSearchPath``
/// (`APPEX_EXTENSIONS_PATH`): other apps' `.app` bundles with their `Extensions/`, standalone
/// `.appex` bundles, or folders holding either. Those are unapproved until the owner enables them.
///
/// Loaded bundles are cached and reused while their files are unchanged on disk, so a second
/// ``snapshot()`` costs a `stat` per file rather than a signature check.
public final class ExtensionDiscovery: Sendable {
    /// The environment searched.
    public let environment: AppexEnvironment
    /// The host bundle's path.
    public let hostPath: String

    let registry: ApprovalRegistry
    /// Seals verified before, by this process or another of this `APPEX_HOME`.
    let verifications: SealVerifications
    private let cache = Mutex<[String: AppexBundle]>([:])
    private let appCache = Mutex<[String: AppexBundle]>([:])
    private let memo = Mutex<Memo?>(nil)

    /// What the last snapshot was made from: when all of it is unchanged, so is the snapshot.
    private struct Memo {
        var host: UInt64
        var candidates: [Candidate]
        var loads: [UInt64]
        var decisions: [String: ApprovalRegistry.Decision]
        var snapshot: DiscoverySnapshot
    }
    private let hostBundle: Mutex<AppexBundle>
    /// Set for a system host (the widget host): its points are fixed in code, and the
    /// extensions that ship with an app are those inside the apps on the apps path.
    private let isSystemHost: Bool

    /// Opens discovery for the host at `hostPath`.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidBundle` when the host bundle has problems (listed);
    ///   `registry` when the approval registry cannot be opened.
    public init(hostBundleAt hostPath: String, environment: AppexEnvironment = .current()) throws(AppexError) {
        let host = AppexBundle.load(at: hostPath, as: .hostApp)
        try Self.check(host: host)
        self.hostPath = host.path
        self.environment = environment
        self.hostBundle = Mutex(host)
        self.registry = try ApprovalRegistry(environment: environment)
        self.verifications = SealVerifications(environment: environment)
        self.isSystemHost = false
    }

    /// Opens discovery for a host that exists only in code (see ``AppexBundle/systemHost``):
    /// its own extensions are those inside the `.app` bundles on the apps path
    /// (``AppexEnvironment/appsPath``), each enabled by default when its app's team signed it;
    /// those on `APPEX_EXTENSIONS_PATH` are unapproved until the owner enables them. Only
    /// bundles that bind to one of the host's points are listed.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `registry` when the approval registry cannot be opened.
    package init(systemHost host: AppexBundle, environment: AppexEnvironment) throws(AppexError) {
        self.hostPath = host.path
        self.environment = environment
        self.hostBundle = Mutex(host)
        self.registry = try ApprovalRegistry(environment: environment)
        self.verifications = SealVerifications(environment: environment)
        self.isSystemHost = true
    }

    private static func check(host: AppexBundle) throws(AppexError) {
        guard host.isValid, host.bundleIdentifier != nil else {
            throw AppexError(
                .invalidBundle,
                "the host app at \(host.path) is not valid",
                context: AppexError.Context(bundleIdentifier: host.bundleIdentifier, path: host.path),
                problems: host.problems
            )
        }
    }

    /// The host bundle, reloaded if it changed on disk.
    public func host() throws(AppexError) -> AppexBundle {
        let cached = hostBundle.withLock { $0 }
        if isSystemHost || cached.isUpToDate() { return cached }
        let reloaded = AppexBundle.load(at: hostPath, as: .hostApp, verifications: verifications)
        try Self.check(host: reloaded)
        hostBundle.withLock { $0 = reloaded }
        return reloaded
    }

    /// The host's bundle identifier.
    public var hostBundleIdentifier: String {
        hostBundle.withLock { $0.bundleIdentifier ?? "" }
    }

    // MARK: - Snapshot

    /// Every extension for this host, validated, with its state.
    ///
    /// Blocking file I/O: a first snapshot of many bundles takes a while (every seal is
    /// verified); later ones re-stat what was seen. From async code, prefer a
    /// ``AppexVocabulary/AppExtensionPoint/Monitor``, which scans on its own thread.
    public func snapshot() throws(AppexError) -> DiscoverySnapshot {
        defer { verifications.save() }  // what this snapshot verified, for the next process
        let host = try host()
        let hostIdentifier = host.bundleIdentifier ?? ""
        let candidates = candidatePaths()
        let bundles = load(candidates.map(\.path))
        let loads = bundles.map(\.observation.loadIdentifier)
        let decisions = try registry.decisions(host: hostIdentifier)
        if let memo = memo.withLock({ $0 }), memo.host == host.observation.loadIdentifier,
            memo.candidates == candidates, memo.loads == loads, memo.decisions == decisions
        {
            return memo.snapshot
        }

        var claimed: [String: String] = [:]  // bundle identifier -> path of the bundle that wins
        var found: [DiscoveredExtension] = []
        for (candidate, bundle) in zip(candidates, bundles) {
            if isSystemHost {
                if !Self.binds(bundle, toOneOf: host.extensionPoints) { continue }
            } else if candidate.origin == .searchPath, !Self.belongs(bundle, to: hostIdentifier) {
                continue
            }
            var problems = bundle.problems
            problems += bundle.bindingProblems(against: host)
            if candidate.origin == .searchPath, let problem = Self.scopeProblem(of: bundle, host: host) {
                problems.append(problem)
            }
            if let identifier = bundle.bundleIdentifier {
                if let winner = claimed[identifier] {
                    problems.append(
                        BundleProblem(
                            .duplicateBundleIdentifier,
                            file: bundle.path + "/" + AppexBundle.File.info,
                            key: BundleInfo.Key.bundleIdentifier,
                            message:
                                "bundle identifier \(identifier) is also claimed by \(winner), which takes precedence (the host's own Extensions/ first, then APPEX_EXTENSIONS_PATH in order)"
                        )
                    )
                } else {
                    claimed[identifier] = bundle.path
                }
            }
            found.append(
                Self.classify(
                    bundle,
                    origin: candidate.origin,
                    hostTeam: candidate.app.map { appTeam(at: $0) } ?? host.team,
                    problems: problems,
                    decisions: decisions
                )
            )
        }
        found.sort { ($0.bundleIdentifier ?? "", $0.path) < ($1.bundleIdentifier ?? "", $1.path) }
        let snapshot = DiscoverySnapshot(
            hostBundleIdentifier: hostIdentifier,
            extensionPoints: host.extensionPoints.map(\.identifier).sorted(),
            extensions: found
        )
        memo.withLock {
            $0 = Memo(
                host: host.observation.loadIdentifier,
                candidates: candidates,
                loads: loads,
                decisions: decisions,
                snapshot: snapshot
            )
        }
        return snapshot
    }

    /// Whether `bundle` binds to one of `points` (a system host lists only those); a bundle
    /// whose point cannot be read is listed, as invalid, rather than hidden.
    private static func binds(_ bundle: AppexBundle, toOneOf points: [ExtensionPointDeclaration]) -> Bool {
        guard let identifier = bundle.info.extensionPoint else { return bundle.info.extensionPointIdentifier == nil }
        return points.contains { $0.identifier == identifier }
    }

    /// The team that signed the app at `path` (its seal covers its own files, not its
    /// extensions); loads are cached like extensions'.
    private func appTeam(at path: String) -> TeamIdentifier? {
        if let cached = appCache.withLock({ $0[path] }), cached.isUpToDate() { return cached.team }
        let app = AppexBundle.load(at: path, as: .hostApp, verifications: verifications)
        appCache.withLock { $0[path] = app }
        return app.team
    }

    /// The problem of an extension found outside the host app (on `APPEX_EXTENSIONS_PATH`)
    /// whose point takes only extensions inside it (`Scope(restriction: .application)`, the
    /// default), or `nil`.
    private static func scopeProblem(of bundle: AppexBundle, host: AppexBundle) -> BundleProblem? {
        guard let point = bundle.info.extensionPoint,
            let declaration = host.extensionPoints.first(where: { $0.identifier == point }),
            declaration.scope == .application
        else { return nil }
        return BundleProblem(
            .outsideScope,
            file: bundle.path + "/" + AppexBundle.File.info,
            key: BundleInfo.Key.extensionAttributes + "." + BundleInfo.Key.extensionPointIdentifier,
            message:
                "extension point \(point) takes only extensions inside \(host.path) (its scope is application), and this one lies outside it; the host declares Scope(restriction: .none) (AppexScopeRestriction none) to take extensions from elsewhere"
        )
    }

    private static func belongs(_ bundle: AppexBundle, to host: String) -> Bool {
        // A bundle whose point cannot be read might be ours: list it (as invalid) rather than hide it.
        guard let identifier = bundle.info.extensionPoint else { return true }
        return identifier.hostBundleIdentifier == host
    }

    private static func classify(
        _ bundle: AppexBundle,
        origin: DiscoveredExtension.Origin,
        hostTeam: TeamIdentifier?,
        problems: [BundleProblem],
        decisions: [String: ApprovalRegistry.Decision]
    ) -> DiscoveredExtension {
        var identity: AppExtensionIdentity?
        if problems.isEmpty, let identifier = bundle.bundleIdentifier, let team = bundle.team,
            let point = bundle.info.extensionPoint
        {
            identity = AppExtensionIdentity(
                bundleIdentifier: identifier,
                localizedName: bundle.info.localizedName,
                extensionPointIdentifier: point,
                bundlePath: bundle.path,
                teamIdentifier: team
            )
        }
        var state: DiscoveredExtension.State
        var note: String?
        if identity == nil {
            state = .invalid
        } else {
            let decision = bundle.bundleIdentifier.flatMap { decisions[$0] }
            // The host's seal does not cover Extensions/*.appex: an extension there ships with
            // the host (or, for a system host, with its app) only if that team signed it too.
            let shipsWithHost = (origin == .host || origin == .app) && bundle.team != nil && bundle.team == hostTeam
            switch decision {
            case let decision? where !decision.isEnabled:
                state = .disabled
            case _ where shipsWithHost:
                state = .enabled
            case let decision? where decision.team == bundle.team:
                state = .enabled
            case let decision?:
                state = .unapproved
                note =
                    "approved when signed by team \(decision.team?.rawValue ?? "none"), now signed by team \(bundle.team?.rawValue ?? "none"): the owner must enable it again"
            case nil:
                state = .unapproved
                if origin == .app {
                    note =
                        "it sits inside an app but is signed by team \(bundle.team?.rawValue ?? "none"), not the app's team \(hostTeam?.rawValue ?? "none"): the owner must approve it"
                } else if origin == .host {
                    note =
                        "it sits inside the host but is signed by team \(bundle.team?.rawValue ?? "none"), not the host's team \(hostTeam?.rawValue ?? "none"): the owner must approve it"
                }
            }
        }
        return DiscoveredExtension(
            bundleIdentifier: bundle.bundleIdentifier,
            extensionPoint: bundle.info.extensionPointIdentifier,
            state: state,
            path: bundle.path,
            origin: origin,
            team: bundle.team,
            problems: identity == nil ? problems : [],
            note: note,
            identity: identity,
            localizedName: bundle.info.localizedName
        )
    }

    // MARK: - Search places

    struct Candidate: Hashable {
        var path: String
        var origin: DiscoveredExtension.Origin
        /// The app it sits in, for a system host's extensions inside apps.
        var app: String?
    }

    /// Every `.appex` on the search places, in precedence order: the host's own first, then
    /// the search path in order, each folder's entries sorted by name.
    func candidatePaths() -> [Candidate] {
        var seen: Set<String> = []
        var result: [Candidate] = []
        func add(_ path: String, _ origin: DiscoveredExtension.Origin, app: String? = nil) {
            if seen.insert(path).inserted { result.append(Candidate(path: path, origin: origin, app: app)) }
        }
        if isSystemHost {
            for app in appsOnAppsPath() {
                for path in Self.extensions(inApp: app) { add(path, .app, app: app) }
            }
        } else {
            for path in Self.extensions(inApp: hostPath) { add(path, .host) }
        }
        for entry in environment.extensionSearchPath {
            let entry = AppexBundle.normalized(entry)
            if entry == hostPath { continue }
            switch AppexBundle.kind(ofPath: entry) {
            case .appExtension?:
                add(entry, .searchPath)
            case .hostApp?:
                for path in Self.extensions(inApp: entry) { add(path, .searchPath) }
            case nil:
                for (name, isDirectory) in AppexBundle.sortedEntriesWithKind(of: entry) where isDirectory {
                    let child = entry + "/" + name
                    if name.hasSuffix(".appex") {
                        add(child, .searchPath)
                    } else if name.hasSuffix(".app"), child != hostPath {
                        for path in Self.extensions(inApp: child) { add(path, .searchPath) }
                    }
                }
            }
        }
        return result
    }

    /// The `.app` bundles on the apps path, in order: entries that are apps, then the apps
    /// inside entries that are folders, each folder's sorted by name.
    func appsOnAppsPath() -> [String] {
        var apps: [String] = []
        for entry in environment.appsPath {
            let entry = AppexBundle.normalized(entry)
            if AppexBundle.kind(ofPath: entry) == .hostApp {
                apps.append(entry)
            } else {
                for (name, isDirectory) in AppexBundle.sortedEntriesWithKind(of: entry)
                where isDirectory && name.hasSuffix(".app") {
                    apps.append(entry + "/" + name)
                }
            }
        }
        return apps
    }

    /// The folders whose changes can change the snapshot: the search places themselves.
    func searchFolders() -> [String] {
        var folders: [String] = []
        if isSystemHost {
            folders += environment.appsPath.map { AppexBundle.normalized($0) }
            for app in appsOnAppsPath() { folders += [app, app + "/" + AppexBundle.File.extensions] }
        } else {
            folders += [
                hostPath, hostPath + "/" + AppexBundle.File.extensions,
                hostPath + "/" + AppexBundle.File.extensionPoints,
            ]
        }
        for entry in environment.extensionSearchPath {
            let entry = AppexBundle.normalized(entry)
            folders.append(entry)
            if AppexBundle.kind(ofPath: entry) == nil {
                for name in AppexBundle.sortedEntries(of: entry) where name.hasSuffix(".app") {
                    folders.append(entry + "/" + name)
                    folders.append(entry + "/" + name + "/" + AppexBundle.File.extensions)
                }
            } else if AppexBundle.kind(ofPath: entry) == .hostApp {
                folders.append(entry + "/" + AppexBundle.File.extensions)
            }
        }
        return folders
    }

    private static func extensions(inApp app: String) -> [String] {
        let folder = app + "/" + AppexBundle.File.extensions
        return AppexBundle.sortedEntriesWithKind(of: folder)
            .filter { $0.isDirectory && $0.name.hasSuffix(".appex") }
            .map { folder + "/" + $0.name }
    }

    /// Loads bundles, reusing cached loads of unchanged ones; work spreads over the cores.
    func load(_ paths: [String]) -> [AppexBundle] {
        let cached = cache.withLock { cache in paths.map { cache[$0] } }
        let results = Mutex<[AppexBundle?]>(Array(repeating: nil, count: paths.count))
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            let bundle: AppexBundle
            if let previous = cached[index], previous.isUpToDate() {
                bundle = previous
            } else {
                bundle = AppexBundle.load(at: paths[index], as: .appExtension, verifications: verifications)
            }
            results.withLock { $0[index] = bundle }
        }
        let loaded = results.withLock { $0.map { $0! } }
        cache.withLock { cache in
            var fresh: [String: AppexBundle] = [:]
            for bundle in loaded { fresh[bundle.path] = bundle }
            cache = fresh
        }
        return loaded
    }

    /// The last load of the bundle at `path`, if it is still current.
    func currentBundle(at path: String) -> AppexBundle? {
        guard let bundle = cache.withLock({ $0[path] }), bundle.isUpToDate() else { return nil }
        return bundle
    }

    /// The directories to watch for any change to the snapshot: search places, every bundle
    /// found, and the registry's folder.
    func watchedDirectories() -> Set<String> {
        var directories = Set(searchFolders())
        cache.withLock { cache in
            for bundle in cache.values { directories.formUnion(bundle.directories) }
        }
        directories.formUnion(hostBundle.withLock { $0.directories })
        directories.insert(environment.registryDirectory)
        return directories
    }

    // MARK: - Decisions

    /// Enables or disables the extension `bundleIdentifier` for this host.
    ///
    /// Enabling approves the extension as signed by its current team; if another team signs it
    /// later it is unapproved again. An invalid extension cannot be enabled.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `notFound` when no bundle with that identifier is found for
    ///   this host; `refused` when enabling an invalid one (its problems listed).
    public func setEnabled(_ enabled: Bool, bundleIdentifier: String) throws(AppexError) {
        let snapshot = try snapshot()
        guard
            let found = snapshot.extensions.first(where: {
                $0.bundleIdentifier == bundleIdentifier
                    && !$0.problems.contains { $0.kind == .duplicateBundleIdentifier }
            })
        else {
            throw AppexError(
                .notFound,
                "no extension with bundle identifier \(bundleIdentifier) was found for host \(snapshot.hostBundleIdentifier) (searched \(searchDescription))",
                context: AppexError.Context(bundleIdentifier: bundleIdentifier)
            )
        }
        if enabled && found.state == .invalid {
            throw AppexError(
                .refused,
                "cannot enable \(bundleIdentifier): the bundle at \(found.path) is invalid",
                context: AppexError.Context(bundleIdentifier: bundleIdentifier, path: found.path),
                problems: found.problems
            )
        }
        try registry.record(
            ApprovalRegistry.Decision(isEnabled: enabled, team: enabled ? found.team : nil),
            host: snapshot.hostBundleIdentifier,
            bundle: bundleIdentifier
        )
    }

    /// The search places, in words.
    public var searchDescription: String {
        if isSystemHost {
            let apps =
                environment.appsPath.isEmpty
                ? "APPEX_APPS_PATH is empty" : "the apps on " + environment.appsPath.joined(separator: ":")
            let others =
                environment.extensionSearchPath.isEmpty
                ? "APPEX_EXTENSIONS_PATH is empty" : environment.extensionSearchPath.joined(separator: ", ")
            return "\(apps); \(others)"
        }
        let own = hostPath + "/" + AppexBundle.File.extensions
        if environment.extensionSearchPath.isEmpty { return "\(own); APPEX_EXTENSIONS_PATH is empty" }
        return ([own] + environment.extensionSearchPath).joined(separator: ", ")
    }
}
