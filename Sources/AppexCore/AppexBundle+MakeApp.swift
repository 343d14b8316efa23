import AppexSystem
import Foundation

extension AppexBundle {
    /// What to make an app bundle from: what `appex bundle --output X.app` takes.
    public struct AppRecipe: Sendable {
        /// The app's executable.
        public var executable: String
        /// `CFBundleIdentifier` (required: an app binds to no point to take it from).
        public var bundleIdentifier: String
        /// `CFBundleName`; default: the executable's name.
        public var name: String?
        /// `CFBundleVersion`. Default `1`.
        public var version = "1"
        /// `CFBundleShortVersionString`. Default `1.0`.
        public var shortVersion = "1.0"
        /// Shipped as `Entitlements.plist`; `nil` (the default): none.
        public var entitlements: Entitlements?
        /// Signs the bundle (its own files; each extension inside carries its own seal).
        public var signingKey: SigningKey?
        /// Replaces an app already at the destination, keeping its `Extensions/`. Default `false`.
        public var replacesExisting = false

        /// A recipe for `executable` with identifier `bundleIdentifier` and every default.
        public init(executable: String, bundleIdentifier: String) {
            self.executable = executable
            self.bundleIdentifier = bundleIdentifier
        }
    }

    /// Makes an `.app` at `path` from `recipe`: its Info.plist, executable, entitlements, an empty
    /// `Extensions/` folder for the extensions (widgets) it ships, and its seal; then moves it into
    /// place whole. An app replaced keeps the extensions it had.
    ///
    /// - Returns: the bundle, loaded and checked.
    /// - Throws: ``AppexError`` `refused` (a path that is not `.app`, an existing app, an
    ///   identifier that is not reverse-DNS), `invalidBundle` (entitlements with problems),
    ///   `fileSystem`, `invalidKey`.
    @discardableResult
    public static func makeApp(at path: String, from recipe: AppRecipe) throws(AppexError) -> AppexBundle {
        let fileManager = FileManager.default
        let outputPath = normalized(path)
        guard kind(ofPath: outputPath) == .hostApp else {
            throw AppexError(.refused, "\(path) must name a bundle ending in .app")
        }
        let exists = fileManager.fileExists(atPath: outputPath)
        if exists && !recipe.replacesExisting {
            throw AppexError(
                .refused,
                "\(outputPath) already exists: set the recipe's replacesExisting to replace it (`appex bundle --force`)"
            )
        }
        guard BundleInfo.isValidBundleIdentifier(recipe.bundleIdentifier) else {
            throw AppexError(
                .refused,
                "\"\(recipe.bundleIdentifier)\" is not a reverse-DNS bundle identifier (`appex bundle --identifier`)"
            )
        }
        if let entitlements = recipe.entitlements, !entitlements.problems.isEmpty {
            throw AppexError(.invalidBundle, "the entitlements have problems", problems: entitlements.problems)
        }
        let executableName = URL(fileURLWithPath: recipe.executable).lastPathComponent
        let info: [String: PropertyListValue] = [
            BundleInfo.Key.bundleIdentifier: .string(recipe.bundleIdentifier),
            BundleInfo.Key.executable: .string(executableName),
            BundleInfo.Key.name: .string(recipe.name ?? executableName),
            BundleInfo.Key.version: .string(recipe.version),
            BundleInfo.Key.shortVersion: .string(recipe.shortVersion),
            "CFBundlePackageType": .string("APPL"),
        ]
        let staging = outputPath + ".partial-\(ProcessControl.processIdentifier)"
        try? fileManager.removeItem(atPath: staging)
        do {
            try fileManager.createDirectory(atPath: staging, withIntermediateDirectories: true)
            try fileManager.copyItem(atPath: recipe.executable, toPath: staging + "/" + executableName)
            try PropertyListFormat.binary.encode(info).write(to: URL(fileURLWithPath: staging + "/" + File.info))
            if let entitlements = recipe.entitlements {
                try PropertyListFormat.xml.encode(entitlements.propertyList).write(
                    to: URL(fileURLWithPath: staging + "/" + File.entitlements)
                )
            }
            if let key = recipe.signingKey { _ = try sign(at: staging, with: key) }
            // The extensions it ships: kept from the app replaced, else an empty folder.
            let extensions = outputPath + "/" + File.extensions
            if exists && fileManager.fileExists(atPath: extensions) {
                try fileManager.moveItem(atPath: extensions, toPath: staging + "/" + File.extensions)
            } else {
                try fileManager.createDirectory(
                    atPath: staging + "/" + File.extensions,
                    withIntermediateDirectories: true
                )
            }
            if exists { try fileManager.removeItem(atPath: outputPath) }
            try fileManager.moveItem(atPath: staging, toPath: outputPath)
        } catch let error as AppexError {
            try? fileManager.removeItem(atPath: staging)
            throw error
        } catch {
            try? fileManager.removeItem(atPath: staging)
            throw AppexError(.fileSystem, "cannot make \(outputPath) (staged at \(staging)): \(error)")
        }
        return load(at: outputPath, as: .hostApp)
    }
}
