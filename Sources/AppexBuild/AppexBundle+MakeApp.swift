public import AppexCore
import AppexVocabulary
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
        /// The extension points the app declares, each written to
        /// `ExtensionPoints/<name>.appextensionpoint` inside its seal. Each must belong to the app
        /// (its identifier starts with ``bundleIdentifier``). Default: none.
        public var extensionPoints: [ExtensionPointDeclaration] = []
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
    /// - Throws: ``/AppexVocabulary/AppexError`` `refused` (a path that is not `.app`, an existing app, an
    ///   identifier that is not reverse-DNS), `invalidBundle` (entitlements with problems, or an
    ///   app that `appex validate` would refuse: nothing is written then), `fileSystem`,
    ///   `invalidKey`.
    @discardableResult
    public static func makeApp(at path: String, from recipe: AppRecipe) throws(AppexError) -> AppexBundle {
        let outputPath = normalized(path)
        guard kind(ofPath: outputPath) == .hostApp else {
            throw AppexError(.refused, "\(path) must name a bundle ending in .app")
        }
        try checkDestination(outputPath, replacing: recipe.replacesExisting)
        guard BundleInfo.isValidBundleIdentifier(recipe.bundleIdentifier) else {
            throw AppexError(
                .refused,
                "\"\(recipe.bundleIdentifier)\" is not a reverse-DNS bundle identifier (`appex bundle --identifier`)"
            )
        }
        if let entitlements = recipe.entitlements, !entitlements.problems.isEmpty {
            throw AppexError(.invalidBundle, "the entitlements have problems", problems: entitlements.problems)
        }
        var declarations: [String: Data] = [:]
        for point in recipe.extensionPoints {
            guard point.identifier.hostBundleIdentifier == recipe.bundleIdentifier else {
                throw AppexError(
                    .refused,
                    "extension point \(point.identifier) does not belong to the app \(recipe.bundleIdentifier): its identifier must start with \"\(recipe.bundleIdentifier).\""
                )
            }
            let file =
                File.extensionPoints + "/" + point.identifier.name + "." + ExtensionPointDeclaration.fileExtension
            guard declarations[file] == nil else {
                throw AppexError(.refused, "extension point \(point.identifier) is declared twice")
            }
            do {
                declarations[file] = try PropertyListFormat.xml.encode(point.propertyList)
            } catch {
                throw AppexError(.refused, "extension point \(point.identifier) cannot be written: \(error)")
            }
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
        // Its extensions sit outside its seal: kept from the app it replaces, else an empty folder.
        try stage(
            outputPath,
            executable: recipe.executable,
            info: info,
            entitlements: recipe.entitlements,
            signingKey: recipe.signingKey,
            files: declarations,
            carrying: [File.extensions]
        ) { staged in load(at: staged, as: .hostApp).problems }
        return load(at: outputPath, as: .hostApp)
    }
}
