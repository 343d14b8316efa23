public import AppexCore
public import Foundation

/// Writes host-app and extension bundles to disk in the layout docs/ARCHITECTURE.md gives
/// ("Bundles on disk"), with real executables and, when asked, real seals.
public enum FixtureBundles {
    /// The fixture executable: a shell script that exits at once.
    public static let executableContents = "#!/bin/sh\nexit 0\n"

    /// The Info.plist of an extension with Apple's keys.
    public static func extensionInfo(
        bundleIdentifier: String,
        extensionPoint: String,
        name: String,
        executable: String = "Extension"
    ) -> [String: PropertyListValue] {
        [
            BundleInfo.Key.bundleIdentifier: .string(bundleIdentifier),
            BundleInfo.Key.executable: .string(executable),
            BundleInfo.Key.name: .string(name),
            BundleInfo.Key.version: .string("1"),
            BundleInfo.Key.shortVersion: .string("1.0"),
            "CFBundlePackageType": .string("XPC!"),
            BundleInfo.Key.extensionAttributes: .dictionary([
                BundleInfo.Key.extensionPointIdentifier: .string(extensionPoint)
            ]),
        ]
    }

    /// Writes a host app bundle at `path` declaring `extensionPoints` (names) with `scope`,
    /// signed by `key` when given.
    ///
    /// The fixture's points take extensions from elsewhere (`.none`) unless told otherwise:
    /// most tests of discovery install extensions on `APPEX_EXTENSIONS_PATH`. A real host's
    /// points default to `.application`.
    @discardableResult
    public static func makeHostApp(
        at path: String,
        bundleIdentifier: String,
        extensionPoints: [String],
        scope: AppExtensionPoint.Scope.Restriction = .none,
        format: PropertyListFormat = .xml,
        signedBy key: SigningKey? = nil
    ) throws -> String {
        let fm = FileManager.default
        try fm.createDirectory(atPath: path + "/ExtensionPoints", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: path + "/Extensions", withIntermediateDirectories: true)
        let executable = "HostApp"
        try write(
            format.encode([
                BundleInfo.Key.bundleIdentifier: .string(bundleIdentifier),
                BundleInfo.Key.executable: .string(executable),
                BundleInfo.Key.name: .string("Host App"),
                BundleInfo.Key.version: .string("1"),
                "CFBundlePackageType": .string("APPL"),
            ]),
            to: path + "/Info.plist"
        )
        try writeExecutable(at: path + "/" + executable)
        for name in extensionPoints {
            let declaration = ExtensionPointDeclaration(
                identifier: ExtensionPointIdentifier(host: bundleIdentifier, name: name),
                scope: scope
            )
            try write(format.encode(declaration.propertyList), to: path + "/ExtensionPoints/\(name).appextensionpoint")
        }
        if let key { try AppexBundle.sign(at: path, with: key) }
        return path
    }

    /// Writes an extension bundle `name.appex` inside `folder`, signed by `key` when given.
    ///
    /// - Parameters:
    ///   - folder: the folder the bundle is written in.
    ///   - name: the bundle's name, without `.appex` (its `CFBundleName`).
    ///   - bundleIdentifier: its `CFBundleIdentifier`.
    ///   - extensionPoint: the point it binds to, in string form (`EXExtensionPointIdentifier`).
    ///   - format: the form of its Info.plist and entitlements, XML or binary.
    ///   - entitlements: written to `Entitlements.plist` when given.
    ///   - overrides: overrides and additions to the default Info.plist keys.
    ///   - removedKeys: Info.plist keys to leave out.
    ///   - key: signs the bundle when given.
    @discardableResult
    public static func makeExtension(
        in folder: String,
        name: String,
        bundleIdentifier: String,
        extensionPoint: String,
        format: PropertyListFormat = .xml,
        entitlements: Entitlements? = nil,
        info overrides: [String: PropertyListValue] = [:],
        removing removedKeys: [String] = [],
        signedBy key: SigningKey? = nil
    ) throws -> String {
        let path = folder + "/" + name + ".appex"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var info = extensionInfo(bundleIdentifier: bundleIdentifier, extensionPoint: extensionPoint, name: name)
        info.merge(overrides) { _, new in new }
        for key in removedKeys { info[key] = nil }
        try write(format.encode(info), to: path + "/Info.plist")
        if let executable = info[BundleInfo.Key.executable]?.stringValue, !executable.isEmpty,
            !executable.contains("/"), !executable.contains("$")
        {
            try writeExecutable(at: path + "/" + executable)
        }
        if let entitlements {
            try write(format.encode(entitlements.propertyList), to: path + "/Entitlements.plist")
        }
        if let key { try AppexBundle.sign(at: path, with: key) }
        return path
    }

    /// Bundles a real extension executable as `name.appex` inside `folder`, as `appex bundle`
    /// does (``/AppexBuild/AppexCore/AppexBundle/makeExtension(at:from:)``: the Info.plist comes from the binding the
    /// executable prints, unless `extensionPoint` overrides it), signed by `key` when given. It is
    /// not checked against the app whose `Extensions/` `folder` may be: a test may need an
    /// extension that app refuses.
    @discardableResult
    public static func bundle(
        executable: String,
        in folder: String,
        name: String,
        bundleIdentifier: String,
        extensionPoint: ExtensionPointIdentifier? = nil,
        entitlements: Entitlements? = nil,
        signedBy key: SigningKey? = nil
    ) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var recipe = AppexBundle.ExtensionRecipe(executable: executable)
        recipe.bundleIdentifier = bundleIdentifier
        recipe.name = name
        recipe.extensionPoint = extensionPoint
        recipe.entitlements = entitlements
        recipe.signingKey = key
        recipe.replacesExisting = true
        // Tests install extensions their host refuses (another point, other groups) on purpose.
        recipe.checksAgainstHost = false
        return try AppexBundle.makeExtension(at: folder + "/" + name + ".appex", from: recipe).path
    }

    /// Writes `data` to `path`, replacing any file there.
    public static func write(_ data: Data, to path: String) throws {
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Writes the fixture executable (mode 0755).
    public static func writeExecutable(at path: String) throws {
        try write(Data(executableContents.utf8), to: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }
}
