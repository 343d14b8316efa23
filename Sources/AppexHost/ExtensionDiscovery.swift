public import AppexCore
import Dispatch
import Synchronization

/// Finds a host's extensions, validates them, and applies the owner's decisions.
///
/// Search places: the host's own `Extensions/` folder (those extensions ship with the host and
/// are enabled by default) and the folders of ``/AppexCore/AppexEnvironment/extensionSearchPath``
/// (`APPEX_EXTENSIONS_PATH`): other apps' `.app` bundles with their `Extensions/`, standalone
/// `.appex` bundles, or folders holding either. Those are unapproved until the owner enables them.
/// The order is precedence: the first bundle found owns its bundle identifier, valid or not, and
/// each later one is invalid (`duplicate-bundle-identifier`), so a valid outsider cannot take an
/// identifier over by being valid.
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
    private let cache = Mutex(Loads())
    /// The last loads: by path, and in the order of the paths they were asked for.
    private struct Loads {
        var byPath: [String: AppexBundle] = [:]
        var paths: [String] = []
        var ordered: [AppexBundle] = []
    }
    private let appCache = Mutex<[String: AppexBundle]>([:])
    private let memo = Mutex<Memo?>(nil)

    /// What the last snapshot was made from: when all of it is unchanged, so is the snapshot.
    private struct Memo {
        var host: UInt64
        var candidates: [Candidate]
        var loads: [UInt64]
        var decisions: [String: ApprovalRegistry.Decision]
        /// The search places' folders, observed before they were listed.
        var folders: FolderObservation
        var snapshot: DiscoverySnapshot
        /// Each candidate's position in `candidates` (and `loads`), by path.
        var positions: [String: Int]
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
        var folders = FolderObservation()
        let candidates = candidatePaths(observing: &folders)
        let bundles = load(candidates.map(\.path))
        let loads = bundles.map { $0.observation.loadIdentifier }
        let decisions = try registry.decisions(host: hostIdentifier)
        if let memo = memo.withLock({ $0 }), memo.host == host.observation.loadIdentifier,
            memo.candidates == candidates, memo.loads == loads, memo.decisions == decisions
        {
            // Unchanged; the folders' newer observation may vouch for them where the older could not.
            self.memo.withLock { $0?.folders = folders }
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
                folders: folders,
                snapshot: snapshot,
                positions: Dictionary(
                    candidates.enumerated().map { ($1.path, $0) },
                    uniquingKeysWith: { first, _ in first }
                )
            )
        }
        return snapshot
    }

    /// The extension at `identity`'s path as a snapshot lists it now, or `nil` when none does.
    ///
    /// What a launch asks. It costs a `stat` per search folder and per file of that one
    /// extension (and a read of the owner's decisions) while the last snapshot still holds:
    /// the host unchanged, no bundle added to or removed from a search place, this bundle's
    /// files unchanged, and the same decisions. Otherwise it takes a new snapshot. A change
    /// inside *another* bundle that was already there (which could only make this one a
    /// duplicate, by an edit that breaks that bundle's own seal) is seen by the next snapshot.
    func entry(for identity: AppExtensionIdentity) throws(AppexError) -> DiscoveredExtension? {
        if let current = try memoEntry(for: identity) { return current }
        return try snapshot().extensions.first { $0.path == identity.bundlePath }
    }

    /// `identity`'s entry in the last snapshot if nothing it was made from changed as far as
    /// ``entry(for:)`` looks; `nil` when that cannot be said.
    private func memoEntry(for identity: AppExtensionIdentity) throws(AppexError) -> DiscoveredExtension? {
        guard let memo = memo.withLock({ $0 }), let position = memo.positions[identity.bundlePath] else { return nil }
        let host = try host()
        guard host.observation.loadIdentifier == memo.host, memo.folders.isCurrent(),
            let bundle = currentBundle(at: identity.bundlePath),
            bundle.observation.loadIdentifier == memo.loads[position]
        else { return nil }
        if let app = memo.candidates[position].app {
            guard let loaded = appCache.withLock({ $0[app] }), loaded.isUpToDate() else { return nil }
        }
        guard try registry.decisions(host: host.bundleIdentifier ?? "") == memo.decisions else { return nil }
        return memo.snapshot.extensions.first { $0.path == identity.bundlePath }
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
        var unused = FolderObservation()
        return candidatePaths(observing: &unused)
    }

    /// ``candidatePaths()``, each folder it lists observed into `folders` first.
    func candidatePaths(observing folders: inout FolderObservation) -> [Candidate] {
        var seen: Set<String> = []
        var result: [Candidate] = []
        func add(_ path: String, _ origin: DiscoveredExtension.Origin, app: String? = nil) {
            if seen.insert(path).inserted { result.append(Candidate(path: path, origin: origin, app: app)) }
        }
        if isSystemHost {
            for app in appsOnAppsPath(observing: &folders) {
                for path in Self.extensions(inApp: app, observing: &folders) { add(path, .app, app: app) }
            }
        } else {
            for path in Self.extensions(inApp: hostPath, observing: &folders) { add(path, .host) }
        }
        for entry in environment.extensionSearchPath {
            let entry = AppexBundle.normalized(entry)
            if entry == hostPath { continue }
            switch AppexBundle.kind(ofPath: entry) {
            case .appExtension?:
                add(entry, .searchPath)  // its own observation covers it
            case .hostApp?:
                for path in Self.extensions(inApp: entry, observing: &folders) { add(path, .searchPath) }
            case nil:
                folders.observe(entry)
                for (name, isDirectory) in AppexBundle.sortedEntriesWithKind(of: entry) where isDirectory {
                    let child = entry + "/" + name
                    if name.hasSuffix(".appex") {
                        add(child, .searchPath)
                    } else if name.hasSuffix(".app"), child != hostPath {
                        for path in Self.extensions(inApp: child, observing: &folders) { add(path, .searchPath) }
                    }
                }
            }
        }
        return result
    }

    /// The `.app` bundles on the apps path, in order: entries that are apps, then the apps
    /// inside entries that are folders, each folder's sorted by name.
    func appsOnAppsPath() -> [String] {
        var unused = FolderObservation()
        return appsOnAppsPath(observing: &unused)
    }

    /// ``appsOnAppsPath()``, each folder it lists observed into `folders` first.
    private func appsOnAppsPath(observing folders: inout FolderObservation) -> [String] {
        var apps: [String] = []
        for entry in environment.appsPath {
            let entry = AppexBundle.normalized(entry)
            if AppexBundle.kind(ofPath: entry) == .hostApp {
                apps.append(entry)
            } else {
                folders.observe(entry)
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

    private static func extensions(inApp app: String, observing folders: inout FolderObservation) -> [String] {
        let folder = app + "/" + AppexBundle.File.extensions
        folders.observe(folder)
        return AppexBundle.sortedEntriesWithKind(of: folder)
            .filter { $0.isDirectory && $0.name.hasSuffix(".appex") }
            .map { folder + "/" + $0.name }
    }

    /// Loads bundles, reusing cached loads of unchanged ones; work spreads over the cores.
    ///
    /// The same paths as last time, all unchanged, give back the last array itself: a bundle
    /// is a large value, and copying 10,000 of them (a reference count each of their many
    /// parts) cost more than their `stat`s (docs/decisions/0008-discovery-caching.md).
    func load(_ paths: [String]) -> [AppexBundle] {
        let last = cache.withLock { $0 }
        let loaded: [AppexBundle]
        if last.paths == paths {
            let ordered = last.ordered
            let stale = Self.indices(of: paths.count) { !ordered[$0].isUpToDate() }
            if stale.isEmpty { return ordered }
            var bundles = ordered
            for (index, bundle) in reload(stale, of: paths) { bundles[index] = bundle }
            loaded = bundles
        } else {
            let previous = paths.map { last.byPath[$0] }
            let stale = Self.indices(of: paths.count) { previous[$0]?.isUpToDate() != true }
            var bundles = previous
            for (index, bundle) in reload(stale, of: paths) { bundles[index] = bundle }
            loaded = bundles.map { $0! }  // each is a previous load still current, or reloaded
        }
        cache.withLock { cache in
            var byPath: [String: AppexBundle] = [:]
            byPath.reserveCapacity(loaded.count)
            for bundle in loaded { byPath[bundle.path] = bundle }
            cache = Loads(byPath: byPath, paths: paths, ordered: loaded)
        }
        return loaded
    }

    /// The bundles at `indices` of `paths`, loaded over the cores, with their indices.
    private func reload(_ indices: [Int], of paths: [String]) -> [(Int, AppexBundle)] {
        let reloaded = Mutex<[(Int, AppexBundle)]>([])
        let verifications = self.verifications
        DispatchQueue.concurrentPerform(iterations: indices.count) { position in
            let index = indices[position]
            let bundle = AppexBundle.load(at: paths[index], as: .appExtension, verifications: verifications)
            reloaded.withLock { $0.append((index, bundle)) }
        }
        return reloaded.withLock { $0 }
    }

    /// The indices below `count` for which `test` holds, tested over the cores, in order.
    private static func indices(of count: Int, where test: @Sendable (Int) -> Bool) -> [Int] {
        let found = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: count) { index in
            if test(index) { found.withLock { $0.append(index) } }
        }
        return found.withLock { $0 }.sorted()
    }

    /// The last load of the bundle at `path`, if it is still current.
    func currentBundle(at path: String) -> AppexBundle? {
        guard let bundle = cache.withLock({ $0.byPath[path] }), bundle.isUpToDate() else { return nil }
        return bundle
    }

    /// The directories to watch for any change to the snapshot: search places, every bundle
    /// found, and the registry's folder.
    func watchedDirectories() -> Set<String> {
        var directories = Set(searchFolders())
        cache.withLock { cache in
            for bundle in cache.byPath.values { directories.formUnion(bundle.directories) }
        }
        directories.formUnion(hostBundle.withLock { $0.directories })
        directories.insert(environment.registryDirectory)
        return directories
    }

    // MARK: - Decisions

    /// The owner's decision about `bundleIdentifier` for this host as recorded, `nil` when none
    /// is: for a tool that changes decisions for a while and puts them back (`appex bisect`).
    package func recordedDecision(bundleIdentifier: String) throws(AppexError) -> ApprovalRegistry.Decision? {
        try registry.decisions(host: hostBundleIdentifier)[bundleIdentifier]
    }

    /// Puts a decision back exactly as ``recordedDecision(bundleIdentifier:)`` read it (`nil`:
    /// none recorded), whatever the bundle is now.
    package func restoreDecision(_ decision: ApprovalRegistry.Decision?, bundleIdentifier: String) throws(AppexError) {
        if let decision {
            try registry.record(decision, host: hostBundleIdentifier, bundle: bundleIdentifier)
        } else {
            try registry.forget(host: hostBundleIdentifier, bundle: bundleIdentifier)
        }
    }

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
