import AppexBuild
import AppexCommandCore
import AppexCore
import ArgumentParser
import Foundation

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a bundle: Info.plist, entitlements, executable, extension points and seal.",
        discussion:
            "A host app is checked with every extension in its Extensions/ folder, each against the points the host declares. An extension whose app groups or keychain access groups are not exactly its host's gets a warning (it shares no data with its host through them), not a problem. Exit code 0 when valid, 1 with every problem listed otherwise."
    )

    @Argument(help: ArgumentHelp("A .app or .appex bundle.", valueName: "PATH"))
    var path: String

    func run() throws {
        let report = BundleValidation.validate(path: path)
        for (bundle, problems) in report {
            if problems.isEmpty {
                print(
                    "\(bundle.path): valid \(bundle.kind == .hostApp ? "host app" : "extension") \(bundle.bundleIdentifier ?? "")\(bundle.team.map { ", team \($0)" } ?? "")"
                )
            } else {
                print("\(bundle.path): \(problems.count) problem\(problems.count == 1 ? "" : "s")")
                for problem in problems { print("  - \(problem)") }
            }
            for warning in sharingWarnings(of: bundle) { print("  warning: \(warning)") }
        }
        if report.contains(where: { !$0.1.isEmpty }) { throw ExitCode.failure }
    }
}

/// Validation of a path as a whole: a host with its own extensions, or one extension (checked
/// against its host's points and sharing entitlements when it sits in a host's `Extensions/`).
enum BundleValidation {
    static func validate(path: String) -> [(AppexBundle, [BundleProblem])] {
        let bundle = AppexBundle.load(at: path)
        switch bundle.kind {
        case .hostApp:
            var report = [(bundle, bundle.problems)]
            let folder = bundle.path + "/" + AppexBundle.File.extensions
            for name in AppexBundle.sortedEntries(of: folder) where name.hasSuffix(".appex") {
                let nested = AppexBundle.load(at: folder + "/" + name, as: .appExtension)
                report.append((nested, nested.problems + againstHost(nested, bundle)))
            }
            return report
        case .appExtension:
            return [(bundle, problems(of: bundle))]
        }
    }

    /// What `validate` says of the bundle at `path` itself: a host's own problems (its
    /// extensions are not loaded), an extension's against the host it sits in, if it does.
    static func problems(ofBundleAt path: String) -> [BundleProblem] {
        problems(of: AppexBundle.load(at: path))
    }

    private static func problems(of bundle: AppexBundle) -> [BundleProblem] {
        guard bundle.kind == .appExtension else { return bundle.problems }
        let parent = (bundle.path as NSString).deletingLastPathComponent
        if (parent as NSString).lastPathComponent == AppexBundle.File.extensions {
            let host = AppexBundle.load(at: (parent as NSString).deletingLastPathComponent, as: .hostApp)
            if host.bundleIdentifier != nil { return bundle.problems + againstHost(bundle, host) }
        }
        return bundle.problems
    }

    /// What is wrong with `bundle` as an extension of `host`: a point the host does not declare.
    /// (Sharing entitlements that differ from the host's are warnings: ``sharingWarnings(of:)``.)
    static func againstHost(_ bundle: AppexBundle, _ host: AppexBundle) -> [BundleProblem] {
        bundle.bindingProblems(against: host)
    }
}

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a bundle declares: identity, extension point, entitlements, team, problems."
    )

    @Argument(help: ArgumentHelp("A .app or .appex bundle.", valueName: "PATH"))
    var path: String

    @Flag(help: "Print JSON.")
    var json = false

    struct Record: Encodable {
        var path: String
        var kind: String
        var bundleIdentifier: String?
        var name: String
        var executable: String?
        var version: String?
        var shortVersion: String?
        var extensionPoint: String?
        var declaredExtensionPoints: [String]
        var applicationGroups: [String]
        var keychainAccessGroups: [String]
        var team: String?
        var fileCount: Int
        var valid: Bool
        var problems: [String]
        var infoPlist: [String: PropertyListValue]
    }

    func run() throws {
        let bundle = AppexBundle.load(at: path)
        let record = Record(
            path: bundle.path,
            kind: bundle.kind.rawValue,
            bundleIdentifier: bundle.bundleIdentifier,
            name: bundle.info.localizedName,
            executable: bundle.info.executableName,
            version: bundle.info.version,
            shortVersion: bundle.info.shortVersion,
            extensionPoint: bundle.info.extensionPointIdentifier,
            declaredExtensionPoints: bundle.extensionPoints.map(\.identifier.description),
            applicationGroups: bundle.entitlements.applicationGroups,
            keychainAccessGroups: bundle.entitlements.keychainAccessGroups,
            team: bundle.team?.rawValue,
            fileCount: bundle.fileCount,
            valid: bundle.isValid,
            problems: bundle.problems.map(\.description),
            infoPlist: bundle.info.values
        )
        if json {
            try printJSON(record)
            return
        }
        print("\(record.path) (\(record.kind))")
        print("  bundle identifier: \(record.bundleIdentifier ?? "-")")
        print("  name:              \(record.name)")
        print("  version:           \(record.shortVersion ?? "-") (\(record.version ?? "-"))")
        if bundle.kind == .appExtension { print("  extension point:   \(record.extensionPoint ?? "-")") }
        if !record.declaredExtensionPoints.isEmpty {
            print("  declares:          \(record.declaredExtensionPoints.joined(separator: ", "))")
        }
        print("  app groups:        \(record.applicationGroups.joined(separator: ", "))")
        print("  keychain groups:   \(record.keychainAccessGroups.joined(separator: ", "))")
        print("  team:              \(record.team ?? "- (unsigned or bad signature)")")
        print("  files:             \(record.fileCount)")
        for problem in record.problems { print("  - \(problem)") }
    }
}

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a team signing key (Ed25519) and print its team ID."
    )

    @Option(
        help: ArgumentHelp("Where to write the key (mode 0600); an existing file is never replaced.", valueName: "FILE")
    )
    var output: String

    func run() throws {
        let key = SigningKey.generate()
        try reporting { () throws(AppexError) in try key.write(to: output) }
        print(key.teamIdentifier.rawValue)
    }
}

struct Sign: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Seal a bundle for a team: writes _CodeSignature/CodeResources.",
        discussion:
            "A host's seal does not cover the extensions in its Extensions/ folder; each is sealed on its own (--deep signs them too, first)."
    )

    @Argument(help: ArgumentHelp("A .app or .appex bundle.", valueName: "BUNDLE"))
    var bundle: String

    @Option(help: ArgumentHelp("The team key made by `appex keygen`.", valueName: "FILE"))
    var key: String

    @Flag(help: "Also sign every extension in a host's Extensions/ folder.")
    var deep = false

    func run() throws {
        let signingKey = try reporting { () throws(AppexError) in try SigningKey(contentsOf: key) }
        let target = AppexBundle.normalized(bundle)
        var bundles: [String] = []
        if deep {
            let folder = target + "/" + AppexBundle.File.extensions
            bundles = AppexBundle.sortedEntries(of: folder).filter { $0.hasSuffix(".appex") }.map { folder + "/" + $0 }
        }
        bundles.append(target)
        // A seal vouches for a bundle as it is: one with a problem a seal does not mend is
        // refused before anything is written, every problem named.
        let sealed: Set<BundleProblem.Kind> = [.unsigned, .badSignature, .fileModified, .fileAdded, .fileRemoved]
        /// Fails naming `path` and each of `problems`, if there are any.
        func refuse(_ problems: [BundleProblem], _ message: String, path: String) throws {
            guard !problems.isEmpty else { return }
            throw fail(AppexError(.invalidBundle, message, context: AppexError.Context(path: path), problems: problems))
        }
        let before = bundles.flatMap { BundleValidation.problems(ofBundleAt: $0) }.filter { !sealed.contains($0.kind) }
        try refuse(before, "\(target) was not signed: it has problems a seal does not mend", path: target)
        for path in bundles {
            let count = try reporting { () throws(AppexError) in try AppexBundle.sign(at: path, with: signingKey) }
            // What `appex validate` says of the signed bundle; it must say nothing.
            try refuse(BundleValidation.problems(ofBundleAt: path), "\(path) was signed but is not valid", path: path)
            print("signed \(path) for team \(signingKey.teamIdentifier) (\(count) files)")
            warnAboutSharing(of: AppexBundle.load(at: path))
        }
    }
}
