import Foundation

/// What a bundle's `Info.plist` says, read with Apple's keys.
///
/// Reading never throws: whatever is missing or wrong becomes a ``/AppexVocabulary/BundleProblem`` in
/// ``problems``, and the keys that could be read are still filled in.
public struct BundleInfo: Sendable, Hashable {
    /// `CFBundleIdentifier`.
    public var bundleIdentifier: String?
    /// `CFBundleExecutable`: the executable's file name inside the bundle.
    public var executableName: String?
    /// `CFBundleName`.
    public var name: String?
    /// `CFBundleDisplayName`.
    public var displayName: String?
    /// `CFBundleVersion`.
    public var version: String?
    /// `CFBundleShortVersionString`.
    public var shortVersion: String?
    /// The extension point, from `EXAppExtensionAttributes.EXExtensionPointIdentifier` or the
    /// legacy `NSExtension.NSExtensionPointIdentifier`, exactly as written.
    public var extensionPointIdentifier: String?
    /// ``extensionPointIdentifier`` parsed (`host.name`); `nil` when absent or not of that form.
    public var extensionPoint: ExtensionPointIdentifier?
    /// Every key of the file, as read.
    public var values: [String: PropertyListValue]
    /// Everything wrong with the file; empty when it is valid.
    public var problems: [BundleProblem]

    /// The name people see: `CFBundleDisplayName`, else `CFBundleName`, else the bundle identifier.
    public var localizedName: String {
        displayName ?? name ?? bundleIdentifier ?? "(unnamed)"
    }

    /// The keys every bundle needs.
    public enum Key {
        /// `CFBundleIdentifier`: the bundle's reverse-DNS identifier.
        public static let bundleIdentifier = "CFBundleIdentifier"
        /// `CFBundleExecutable`: the executable's file name inside the bundle.
        public static let executable = "CFBundleExecutable"
        /// `CFBundleName`: the bundle's short name.
        public static let name = "CFBundleName"
        /// `CFBundleDisplayName`: the name shown to people, when it differs.
        public static let displayName = "CFBundleDisplayName"
        /// `CFBundleVersion`: the build version.
        public static let version = "CFBundleVersion"
        /// `CFBundleShortVersionString`: the marketing version.
        public static let shortVersion = "CFBundleShortVersionString"
        /// `EXAppExtensionAttributes`: ExtensionKit's dictionary of an extension's attributes.
        public static let extensionAttributes = "EXAppExtensionAttributes"
        /// `EXExtensionPointIdentifier`, inside `EXAppExtensionAttributes`: the point the extension binds to.
        public static let extensionPointIdentifier = "EXExtensionPointIdentifier"
        /// `NSExtension`: the older app-extension dictionary, still read.
        public static let legacyExtension = "NSExtension"
        /// `NSExtensionPointIdentifier`, inside `NSExtension`: the point, in the older form.
        public static let legacyExtensionPointIdentifier = "NSExtensionPointIdentifier"
    }

    /// What the file describes: an extension needs an extension point, a host does not.
    public enum Role: Sendable {
        /// A host app: it declares points and binds to none.
        case hostApp
        /// An app extension: it must name the point it binds to.
        case appExtension
    }

    /// Reads an `Info.plist` in XML or binary form.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the file's path, named in every problem.
    ///   - role: whether the bundle is an extension (which must name its extension point).
    public init(data: [UInt8], file: String, role: Role) {
        self.values = [:]
        self.problems = []
        let dictionary: [String: PropertyListValue]
        do {
            dictionary = try PropertyListValue.readDictionary(from: data)
        } catch {
            problems.append(BundleProblem(.malformedPropertyList, file: file, message: error.reason))
            return
        }
        values = dictionary
        var reader = KeyReader(dictionary: dictionary, file: file)
        bundleIdentifier = reader.string(Key.bundleIdentifier, required: true)
        executableName = reader.string(Key.executable, required: true)
        name = reader.string(Key.name, required: false)
        displayName = reader.string(Key.displayName, required: false)
        version = reader.string(Key.version, required: true)
        shortVersion = reader.string(Key.shortVersion, required: false)
        if let identifier = bundleIdentifier, BuildSettings.unexpandedNames(in: identifier).isEmpty,
            !Self.isValidBundleIdentifier(identifier)
        {
            reader.problems.append(
                BundleProblem(
                    .invalidValue,
                    file: file,
                    key: Key.bundleIdentifier,
                    message:
                        "\(Key.bundleIdentifier) \"\(identifier)\" is not a reverse-DNS identifier (letters, digits, '-' and '.')"
                )
            )
        }
        if let executable = executableName,
            executable.isEmpty || executable.contains("/") || executable == "." || executable == ".."
        {
            reader.problems.append(
                BundleProblem(
                    .invalidValue,
                    file: file,
                    key: Key.executable,
                    message: "\(Key.executable) \"\(executable)\" must be a file name inside the bundle"
                )
            )
        }
        extensionPointIdentifier = reader.extensionPoint(required: role == .appExtension)
        extensionPoint = extensionPointIdentifier.flatMap(ExtensionPointIdentifier.init)
        problems = reader.problems + BuildSettings.problems(in: dictionary, file: file)
    }

    /// Whether `identifier` is a reverse-DNS bundle identifier as Apple defines it.
    public static func isValidBundleIdentifier(_ identifier: String) -> Bool {
        guard !identifier.isEmpty, !identifier.hasPrefix("."), !identifier.hasSuffix("."),
            !identifier.contains("..")
        else { return false }
        return identifier.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == ".")
        }
    }
}

/// Reads typed keys out of a plist dictionary, collecting a problem for each missing or
/// wrong-typed one.
struct KeyReader {
    let dictionary: [String: PropertyListValue]
    let file: String
    var problems: [BundleProblem] = []

    init(dictionary: [String: PropertyListValue], file: String) {
        self.dictionary = dictionary
        self.file = file
    }

    mutating func string(_ key: String, required: Bool) -> String? {
        guard let value = dictionary[key] else {
            if required {
                problems.append(BundleProblem(.missingKey, file: file, key: key, message: "missing key \(key)"))
            }
            return nil
        }
        guard case .string(let string) = value else {
            problems.append(wrongType(key, expected: "string", found: value))
            return nil
        }
        if required && string.isEmpty {
            problems.append(BundleProblem(.invalidValue, file: file, key: key, message: "\(key) is empty"))
        }
        return string
    }

    mutating func stringArray(_ key: String) -> [String] {
        guard let value = dictionary[key] else { return [] }
        guard case .array(let items) = value else {
            problems.append(wrongType(key, expected: "array of strings", found: value))
            return []
        }
        var strings: [String] = []
        for (offset, item) in items.enumerated() {
            if case .string(let string) = item {
                strings.append(string)
            } else {
                problems.append(wrongType("\(key)[\(offset)]", expected: "string", found: item))
            }
        }
        return strings
    }

    mutating func extensionPoint(required: Bool) -> String? {
        typealias Key = BundleInfo.Key
        let modernPath = "\(Key.extensionAttributes).\(Key.extensionPointIdentifier)"
        let legacyPath = "\(Key.legacyExtension).\(Key.legacyExtensionPointIdentifier)"
        let modern = nested(Key.extensionAttributes, Key.extensionPointIdentifier, path: modernPath)
        let legacy = nested(Key.legacyExtension, Key.legacyExtensionPointIdentifier, path: legacyPath)
        if let modern, let legacy, modern != legacy {
            problems.append(
                BundleProblem(
                    .invalidValue,
                    file: file,
                    key: modernPath,
                    message: "\(modernPath) \"\(modern)\" disagrees with \(legacyPath) \"\(legacy)\""
                )
            )
        }
        let point = modern ?? legacy
        if point == nil && required
            && dictionary[Key.extensionAttributes] == nil && dictionary[Key.legacyExtension] == nil
        {
            problems.append(
                BundleProblem(
                    .missingKey,
                    file: file,
                    key: modernPath,
                    message: "missing key \(modernPath) (or legacy \(legacyPath)): the bundle names no extension point"
                )
            )
        }
        return point
    }

    private mutating func nested(_ outer: String, _ inner: String, path: String) -> String? {
        guard let outerValue = dictionary[outer] else { return nil }
        guard case .dictionary(let entries) = outerValue else {
            problems.append(wrongType(outer, expected: "dictionary", found: outerValue))
            return nil
        }
        guard let value = entries[inner] else {
            problems.append(BundleProblem(.missingKey, file: file, key: path, message: "missing key \(path)"))
            return nil
        }
        guard case .string(let string) = value, !string.isEmpty else {
            problems.append(wrongType(path, expected: "non-empty string", found: value))
            return nil
        }
        return string
    }

    func wrongType(_ key: String, expected: String, found: PropertyListValue) -> BundleProblem {
        BundleProblem(
            .wrongType,
            file: file,
            key: key,
            message: "\(key) must be a \(expected), found \(found.typeName)"
        )
    }
}
