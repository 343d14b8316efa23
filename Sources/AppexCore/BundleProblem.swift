/// One thing wrong with a bundle, naming the file and, where there is one, the key.
///
/// Validation never stops at the first problem: a bundle's problems are all reported at once,
/// so a developer fixes them in one pass.
public struct BundleProblem: Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem this is. New kinds may be added; switch with a `default`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A stable, machine-readable name such as `missing-key`.
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A file the bundle needs could not be read.
        public static let unreadableFile = Kind("unreadable-file")
        /// A file is not a property list, or not a dictionary.
        public static let malformedPropertyList = Kind("malformed-property-list")
        /// A required key is absent.
        public static let missingKey = Kind("missing-key")
        /// A key holds a value of the wrong plist type.
        public static let wrongType = Kind("wrong-type")
        /// A key holds a value of the right type that is not acceptable.
        public static let invalidValue = Kind("invalid-value")
        /// A `$(NAME)` build setting was never expanded by a build.
        public static let unexpandedBuildSetting = Kind("unexpanded-build-setting")
        /// `CFBundleExecutable` names no file.
        public static let missingExecutable = Kind("missing-executable")
        /// The executable exists but may not be executed.
        public static let notExecutable = Kind("not-executable")
        /// The extension binds to a point its host does not declare.
        public static let undeclaredExtensionPoint = Kind("undeclared-extension-point")
        /// The bundle carries no `_CodeSignature/CodeResources`.
        public static let unsigned = Kind("unsigned")
        /// The seal is unreadable or its signature does not verify.
        public static let badSignature = Kind("bad-signature")
        /// A sealed file's contents changed.
        public static let fileModified = Kind("file-modified")
        /// A file was added after sealing.
        public static let fileAdded = Kind("file-added")
        /// A sealed file is gone.
        public static let fileRemoved = Kind("file-removed")
        /// A file the seal cannot vouch for: a link that leads out of the bundle, a name that is
        /// not UTF-8, a device, socket or pipe.
        public static let unsupportedFile = Kind("unsupported-file")
        /// Another bundle claims the same bundle identifier and takes precedence.
        public static let duplicateBundleIdentifier = Kind("duplicate-bundle-identifier")
    }

    /// What kind of problem this is.
    public let kind: Kind
    /// The file the problem is in (absolute path).
    public let file: String
    /// The key path inside that file (`NSExtension.NSExtensionPointIdentifier`), if any.
    public let key: String?
    /// What is wrong, in words, without the file name.
    public let message: String

    /// Makes a problem.
    public init(_ kind: Kind, file: String, key: String? = nil, message: String) {
        self.kind = kind
        self.file = file
        self.key = key
        self.message = message
    }

    /// `FILE: MESSAGE`.
    public var description: String { "\(file): \(message)" }
}

// MARK: - Build settings

enum BuildSettings {
    /// The names of unexpanded Xcode build settings in a string: `$(NAME)`, `${NAME}`, and
    /// `$(NAME:modifier)` all yield `NAME`.
    static func unexpandedNames(in string: String) -> [String] {
        guard string.contains("$") else { return [] }
        var names: [String] = []
        let scalars = Array(string.unicodeScalars)
        var index = 0
        while index < scalars.count - 1 {
            guard scalars[index] == "$", scalars[index + 1] == "(" || scalars[index + 1] == "{" else {
                index += 1
                continue
            }
            let close: Unicode.Scalar = scalars[index + 1] == "(" ? ")" : "}"
            var end = index + 2
            while end < scalars.count, scalars[end] != close { end += 1 }
            guard end < scalars.count else { break }
            var name = String(String.UnicodeScalarView(scalars[(index + 2)..<end]))
            if let colon = name.firstIndex(of: ":") { name = String(name[..<colon]) }
            if !name.isEmpty { names.append(name) }
            index = end + 1
        }
        return names
    }

    /// One problem per unexpanded build setting anywhere in `dictionary`, named by key path.
    static func problems(in dictionary: [String: PropertyListValue], file: String) -> [BundleProblem] {
        // Most files have no `$` at all: find that out without building key paths.
        func mayHaveSettings(_ value: PropertyListValue) -> Bool {
            switch value {
            case .string(let string): string.utf8.contains(UInt8(ascii: "$"))
            case .array(let items): items.contains(where: mayHaveSettings)
            case .dictionary(let entries): entries.values.contains(where: mayHaveSettings)
            default: false
            }
        }
        guard dictionary.values.contains(where: mayHaveSettings) else { return [] }
        var problems: [BundleProblem] = []
        func visit(_ value: PropertyListValue, path: String) {
            switch value {
            case .string(let string):
                for name in unexpandedNames(in: string) {
                    problems.append(BundleProblem(
                        .unexpandedBuildSetting, file: file, key: path,
                        message: "unexpanded build setting \(name) in \(path)"))
                }
            case .array(let items):
                for (offset, item) in items.enumerated() { visit(item, path: "\(path)[\(offset)]") }
            case .dictionary(let entries):
                for key in entries.keys.sorted() { visit(entries[key]!, path: path.isEmpty ? key : "\(path).\(key)") }
            default:
                break
            }
        }
        for key in dictionary.keys.sorted() { visit(dictionary[key]!, path: key) }
        return problems
    }
}
