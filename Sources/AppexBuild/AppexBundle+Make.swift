public import AppexCore
import AppexSystem
import AppexVocabulary
import Foundation

extension AppexBundle {
    /// What to make an extension bundle from: what `appex bundle` takes.
    public struct ExtensionRecipe: Sendable {
        /// The extension executable (an `AppExtension` `@main`).
        public var executable: String
        /// The point it binds to; `nil` (the default): asked from the executable, which prints its
        /// binding in code when run with `--print-binding` — nobody types the Info.plist.
        public var extensionPoint: ExtensionPointIdentifier?
        /// `CFBundleIdentifier`; default: the point's host id, a dot, the executable's name in lower
        /// case; for a system point (`com.apple.widgetkit-extension`), the identifier of the app
        /// whose `Extensions/` the bundle is made in, a dot, the executable's name in lower case.
        public var bundleIdentifier: String?
        /// `CFBundleName`; default: the executable's name.
        public var name: String?
        /// `CFBundleVersion`. Default `1`.
        public var version = "1"
        /// `CFBundleShortVersionString`. Default `1.0`.
        public var shortVersion = "1.0"
        /// Shipped as `Entitlements.plist`; `nil` (the default): none.
        public var entitlements: Entitlements?
        /// Signs the bundle; `nil` (the default): unsigned.
        public var signingKey: SigningKey?
        /// Replaces a bundle already at the destination. Default `false`.
        public var replacesExisting = false
        /// Whether a bundle made in an app's `Extensions/` is checked against the app (its points,
        /// app groups and keychain groups), as `appex validate` checks it. Default `true`; `false`
        /// makes one that only that check refuses (AppexTesting's fixtures, for tests of what a
        /// host does with such an extension). Its own problems are always checked.
        public var checksAgainstHost = true

        /// A recipe for `executable` with every default.
        public init(executable: String) { self.executable = executable }
    }

    /// Makes an `.appex` at `path` from `recipe`: writes its binary Info.plist from the binding in
    /// code, ships the executable and entitlements, signs it, then moves it into place whole (a
    /// watcher never sees half a bundle). What `appex bundle` does.
    ///
    /// - Returns: the bundle, loaded and checked.
    /// - Throws: ``/AppexVocabulary/AppexError`` `refused` (a path that is not `.appex`, an existing bundle, an
    ///   executable that prints no binding, an identifier that is not reverse-DNS),
    ///   `launchFailed` (the executable cannot run), `invalidBundle` (entitlements with
    ///   problems, or a bundle that `appex validate` would refuse — checked before it is moved
    ///   into place, against the app whose `Extensions/` it is made in; nothing is written then),
    ///   `fileSystem`, `invalidKey`.
    @discardableResult
    public static func makeExtension(at path: String, from recipe: ExtensionRecipe) throws(AppexError) -> AppexBundle {
        let outputPath = normalized(path)
        guard kind(ofPath: outputPath) == .appExtension else {
            throw AppexError(.refused, "\(path) must name a bundle ending in .appex")
        }
        try checkDestination(outputPath, replacing: recipe.replacesExisting)
        let point: ExtensionPointIdentifier
        if let given = recipe.extensionPoint {
            point = given
        } else {
            point = try binding(ofExecutable: recipe.executable)
        }
        let executableName = URL(fileURLWithPath: recipe.executable).lastPathComponent
        let bundleIdentifier: String
        if let given = recipe.bundleIdentifier {
            bundleIdentifier = given
        } else if point.isSystemPoint {
            // A system point (a widget): the identifier comes from the app it ships in.
            let parent = (outputPath as NSString).deletingLastPathComponent
            let app = (parent as NSString).deletingLastPathComponent
            guard (parent as NSString).lastPathComponent == File.extensions,
                let appIdentifier = load(at: app, as: .hostApp).bundleIdentifier
            else {
                throw AppexError(
                    .refused,
                    "\(executableName) binds to the system point \(point), so its bundle identifier cannot come from the point: give one in the recipe's bundleIdentifier (`appex bundle --identifier`), or make the bundle inside an app's Extensions/ folder"
                )
            }
            bundleIdentifier = "\(appIdentifier).\(executableName.lowercased())"
        } else {
            bundleIdentifier = "\(point.hostBundleIdentifier).\(executableName.lowercased())"
        }
        guard BundleInfo.isValidBundleIdentifier(bundleIdentifier) else {
            throw AppexError(
                .refused,
                "\"\(bundleIdentifier)\" is not a reverse-DNS bundle identifier: give one in the recipe's bundleIdentifier (`appex bundle --identifier`)"
            )
        }
        if let entitlements = recipe.entitlements, !entitlements.problems.isEmpty {
            throw AppexError(.invalidBundle, "the entitlements have problems", problems: entitlements.problems)
        }
        let info: [String: PropertyListValue] = [
            BundleInfo.Key.bundleIdentifier: .string(bundleIdentifier),
            BundleInfo.Key.executable: .string(executableName),
            BundleInfo.Key.name: .string(recipe.name ?? executableName),
            BundleInfo.Key.version: .string(recipe.version),
            BundleInfo.Key.shortVersion: .string(recipe.shortVersion),
            "CFBundlePackageType": .string("XPC!"),
            BundleInfo.Key.extensionAttributes: .dictionary([
                BundleInfo.Key.extensionPointIdentifier: .string(point.description)
            ]),
        ]
        // Checked as `appex validate` checks it before it is moved into place: against the app
        // whose Extensions/ it is made in, if it is.
        let parent = (outputPath as NSString).deletingLastPathComponent
        let host =
            recipe.checksAgainstHost && (parent as NSString).lastPathComponent == File.extensions
            ? load(at: (parent as NSString).deletingLastPathComponent, as: .hostApp) : nil
        try stage(
            outputPath,
            executable: recipe.executable,
            info: info,
            entitlements: recipe.entitlements,
            signingKey: recipe.signingKey
        ) { staged in
            let bundle = load(at: staged, as: .appExtension)
            guard let host, host.bundleIdentifier != nil else { return bundle.problems }
            return bundle.problems + bundle.bindingProblems(against: host)
        }
        return load(at: outputPath, as: .appExtension)
    }

    /// Refuses a destination that exists unless the recipe replaces it.
    static func checkDestination(_ outputPath: String, replacing: Bool) throws(AppexError) {
        guard !replacing, FileManager.default.fileExists(atPath: outputPath) else { return }
        throw AppexError(
            .refused,
            "\(outputPath) already exists: set the recipe's replacesExisting to replace it (`appex bundle --force`)",
            context: AppexError.Context(path: outputPath)
        )
    }

    /// Builds a bundle beside `outputPath` — the executable, a binary Info.plist, the
    /// entitlements, the folders `carrying` names taken from the bundle it replaces (or made
    /// empty), its seal — checks it with `problems` (given the staged bundle's path), and
    /// renames it into place whole. What was at `outputPath` is removed only then: a failure
    /// anywhere, a problem found included, leaves it as it was.
    ///
    /// An unsigned bundle's `unsigned` problem is not a failure when no key was given: it was
    /// asked for. Every other problem is (`invalid-bundle`, naming each at `outputPath`).
    static func stage(
        _ outputPath: String,
        executable: String,
        info: [String: PropertyListValue],
        entitlements: Entitlements?,
        signingKey: SigningKey?,
        files: [String: Data] = [:],
        carrying folders: [String] = [],
        problems: (String) -> [BundleProblem]
    ) throws(AppexError) {
        let fileManager = FileManager.default
        let staging = outputPath + ".partial-\(ProcessControl.processIdentifier)"
        let executableName = URL(fileURLWithPath: executable).lastPathComponent
        try? fileManager.removeItem(atPath: staging)
        do {
            try fileManager.createDirectory(atPath: staging, withIntermediateDirectories: true)
            try fileManager.copyItem(atPath: executable, toPath: staging + "/" + executableName)
            let shipped = URL(fileURLWithPath: staging + "/" + executableName)
            if let lighter = UnusedCurl.removed(from: try Data(contentsOf: shipped)) {
                try lighter.write(to: shipped)
            }
            try PropertyListFormat.binary.encode(info).write(to: URL(fileURLWithPath: staging + "/" + File.info))
            if let entitlements {
                try PropertyListFormat.xml.encode(entitlements.propertyList).write(
                    to: URL(fileURLWithPath: staging + "/" + File.entitlements)
                )
            }
            for (file, data) in files.sorted(by: { $0.key < $1.key }) {
                let url = URL(fileURLWithPath: staging + "/" + file)
                try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: url)
            }
        } catch {
            try? fileManager.removeItem(atPath: staging)
            throw AppexError(
                .fileSystem,
                "cannot stage \(outputPath) at \(staging): \(error)",
                context: AppexError.Context(path: outputPath)
            )
        }
        do {
            if let signingKey { _ = try sign(at: staging, with: signingKey) }
        } catch {
            try? fileManager.removeItem(atPath: staging)
            throw error
        }
        let found = problems(staging).filter { signingKey != nil || $0.kind != .unsigned }
        if !found.isEmpty {
            try? fileManager.removeItem(atPath: staging)
            // Named where the bundle would have been, not at the staging folder that is gone.
            let named = found.map {
                BundleProblem(
                    $0.kind,
                    file: $0.file.hasPrefix(staging) ? outputPath + $0.file.dropFirst(staging.count) : $0.file,
                    key: $0.key,
                    message: $0.message
                )
            }
            throw AppexError(
                .invalidBundle,
                "\(outputPath) would not be valid, so it was not made\(fileManager.fileExists(atPath: outputPath) ? " (the bundle there is unchanged)" : "")",
                context: AppexError.Context(path: outputPath),
                problems: named
            )
        }
        var carried: [String] = []
        do {
            // The folders it carries over, outside the seal (an app's Extensions/): moved last.
            for folder in folders {
                let kept = outputPath + "/" + folder
                if fileManager.fileExists(atPath: kept) {
                    try fileManager.moveItem(atPath: kept, toPath: staging + "/" + folder)
                    carried.append(folder)
                } else {
                    try fileManager.createDirectory(atPath: staging + "/" + folder, withIntermediateDirectories: true)
                }
            }
            if fileManager.fileExists(atPath: outputPath) { try fileManager.removeItem(atPath: outputPath) }
            try fileManager.moveItem(atPath: staging, toPath: outputPath)
        } catch {
            // What was carried goes back where it was before the staging folder is removed.
            for folder in carried where fileManager.fileExists(atPath: outputPath) {
                try? fileManager.moveItem(atPath: staging + "/" + folder, toPath: outputPath + "/" + folder)
            }
            try? fileManager.removeItem(atPath: staging)
            throw AppexError(
                .fileSystem,
                "cannot move \(staging) to \(outputPath): \(error)",
                context: AppexError.Context(path: outputPath)
            )
        }
    }

    /// The point an extension executable binds to in code: runs it with `--print-binding` (an
    /// `AppExtension` prints its point and exits) and reads what it prints; killed after 10 s.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `launchFailed` when it cannot run; `refused` when it prints no
    ///   extension point.
    public static func binding(ofExecutable executable: String) throws(AppexError) -> ExtensionPointIdentifier {
        var run = Subprocess(
            executable,
            arguments: ["--print-binding"],
            environment: ["PATH": "/usr/bin:/bin"],
            workingDirectory: FileManager.default.currentDirectoryPath
        )
        run.output = .captured
        run.errorOutput = .discarded
        let outcome: Subprocess.Outcome
        do { outcome = try run.runWaiting(timeLimit: .seconds(10)) } catch {
            throw AppexError(
                .launchFailed,
                "cannot run \(executable) to read its binding",
                context: AppexError.Context(path: executable),
                underlyingError: error
            )
        }
        let line =
            outcome.lines.lazy.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.first { !$0.isEmpty } ?? ""
        guard outcome.exitCode == 0, let point = ExtensionPointIdentifier(line) else {
            throw AppexError(
                .refused,
                "\(executable) did not print its binding (`--print-binding` \(outcome.timedOut ? "ran past 10 s and was killed" : "ended with \(outcome.status)"), printed \(line.debugDescription)); is it an AppExtension @main?",
                context: AppexError.Context(path: executable)
            )
        }
        return point
    }
}
