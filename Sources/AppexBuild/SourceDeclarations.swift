public import AppexVocabulary
import Foundation

/// What a package's Swift sources declare about extension points, read without building or
/// running them: the build plugin's way to write Info.plists and `.appextensionpoint` files at
/// build time (Xcode's `EX_ENABLE_EXTENSION_POINT_GENERATION`).
///
/// It reads the forms Appex documents, with literal strings:
/// - an extension's binding: `AppExtensionPoint.Identifier("HOST", name: "NAME")`,
///   `ExtensionPointIdentifier(host: "HOST", name: "NAME")`, `AppExtensionPoint(host: "HOST",
///   name: "NAME")` or `AppExtensionPoint(identifier: "HOST.NAME")` after
///   `boundAppExtensionPoint`; a `@main` type that is a `Widget` or `WidgetBundle` binds to
///   WidgetKit's point;
/// - a host's points: `@Definition static var X: AppExtensionPoint { Name("…") … }`.
///
/// Comments are skipped. A binding written any other way (computed, or named through a
/// constant) is not guessed at: ``binding`` answers `nil`, and the tool says to give it.
public struct SourceDeclarations: Sendable {
    /// The point the sources' extension binds to, if they say it in a readable form.
    public let binding: ExtensionPointIdentifier?
    /// The points the sources define (`AppExtensionPoint.Definition`), with an empty host
    /// part, in the order they appear.
    public let definitions: [AppExtensionPoint]

    /// WidgetKit's extension point, which a widget's `@main` binds to.
    public static let widgetPoint = ExtensionPointIdentifier(host: "com.apple", name: "widgetkit-extension")

    /// Reads `text`, the contents of Swift source files.
    public init(source text: String) {
        let code = Self.strippingComments(text)
        binding = Self.binding(in: code)
        definitions = Self.definitions(in: code)
    }

    /// Reads every `.swift` file under `directory`, in path order.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `file-system` naming the folder or file that cannot be read.
    public init(directory: String) throws(AppexError) {
        try self.init(directories: [directory])
    }

    /// Reads every `.swift` file under each of `directories` (a product's target and the targets
    /// it depends on), in order: the binding is the first one found, the definitions are all.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `file-system` naming the folder or file that cannot be read.
    public init(directories: [String]) throws(AppexError) {
        var binding: ExtensionPointIdentifier?
        var definitions: [AppExtensionPoint] = []
        for directory in directories {
            let read = Self(source: try Self.text(under: directory))
            binding = binding ?? read.binding
            definitions += read.definitions
        }
        self.binding = binding
        self.definitions = definitions
    }

    /// The `.swift` files under `directory`, in path order, one after another.
    private static func text(under directory: String) throws(AppexError) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue,
            let enumerator = FileManager.default.enumerator(atPath: directory)
        else {
            throw AppexError(
                .fileSystem,
                "cannot read the sources at \(directory): no such folder",
                context: .init(path: directory)
            )
        }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.hasSuffix(".swift") { files.append(relative) }
        }
        var text = ""
        for relative in files.sorted() {
            let path = directory + "/" + relative
            guard let data = FileManager.default.contents(atPath: path) else {
                throw AppexError(.fileSystem, "cannot read \(path)", context: .init(path: path))
            }
            text += String(decoding: data, as: UTF8.self) + "\n"
        }
        return text
    }

    // MARK: - Reading

    private static func binding(in code: String) -> ExtensionPointIdentifier? {
        if let range = code.range(of: "boundAppExtensionPoint") {
            let rest = code[range.upperBound...]
            let pair =
                /(?:Identifier|ExtensionPointIdentifier|AppExtensionPoint)\(\s*(?:host:\s*)?"([^"]+)"\s*,\s*name:\s*"([^"]+)"\s*\)/
            let whole = /AppExtensionPoint\(\s*identifier:\s*"([^"]+)"\s*\)/
            let first = [
                rest.firstMatch(of: pair).map {
                    ($0.range.lowerBound, ExtensionPointIdentifier(host: String($0.1), name: String($0.2)))
                },
                rest.firstMatch(of: whole).flatMap { match in
                    ExtensionPointIdentifier(String(match.1)).map { (match.range.lowerBound, $0) }
                },
            ].compactMap { $0 }.min { $0.0 < $1.0 }
            if let first { return first.1 }
        }
        if code.firstMatch(
            of: /@main\s+(?:public\s+)?struct\s+\w+\s*:\s*(?:[\w.]+\s*,\s*)*(?:WidgetKit\.)?(?:Widget|WidgetBundle)\b/
        ) != nil {
            return widgetPoint
        }
        return nil
    }

    private static func definitions(in code: String) -> [AppExtensionPoint] {
        var points: [AppExtensionPoint] = []
        let head =
            /@(?:AppExtensionPoint\.)?Definition\s+(?:(?:public|package|internal|fileprivate|private|nonisolated)\s+)*static\s+var\s+\w+\s*:\s*AppExtensionPoint\s*\{/
        for match in code.matches(of: head) {
            guard let body = block(in: code, from: match.range.upperBound) else { continue }
            var components: [AppExtensionPoint.DefinitionComponent] = []
            for line in body.matches(
                of: /(Name|UserInterface|EnhancedSecurity|Scope|ResourceLimits)\(\s*(?:restriction:\s*)?([^)]*?)\s*\)/
            ) {
                let value = String(line.2)
                switch line.1 {
                case "ResourceLimits":
                    components.append(.resourceLimits(resourceLimits(value)))
                case "Name":
                    if let name = value.firstMatch(of: /^"([^"]*)"$/) { components.append(.name(String(name.1))) }
                case "UserInterface":
                    if let flag = Bool(value) { components.append(.userInterface(flag)) }
                case "EnhancedSecurity":
                    if let flag = Bool(value) { components.append(.enhancedSecurity(flag)) }
                default:
                    let name = value.split(separator: ".").last.map(String.init) ?? ""
                    if let restriction = AppExtensionPoint.Scope.Restriction(rawValue: name) {
                        components.append(.scope(restriction))
                    }
                }
            }
            points.append(AppExtensionPoint(definedBy: components, host: ""))
        }
        return points
    }

    /// A `ResourceLimits(…)` line's arguments: `label: N`, where N is an integer literal or a
    /// shift of two (`256 << 20`); a label it does not know, or a value it cannot read, is left
    /// to its default.
    private static func resourceLimits(_ arguments: String) -> AppExtensionPoint.ResourceLimits {
        var limits = AppExtensionPoint.ResourceLimits()
        for argument in arguments.matches(of: /(\w+)\s*:\s*([0-9_]+)(?:\s*<<\s*([0-9]+))?/) {
            guard var number = UInt64(argument.2.filter { $0 != "_" }) else { continue }
            if let shift = argument.3.flatMap({ UInt64($0) }) {
                guard shift < 64, number <= UInt64.max >> shift else { continue }
                number <<= shift
            }
            switch argument.1 {
            case "memoryBytes": limits.memoryBytes = number
            case "openFiles": limits.openFiles = number
            case "cpuSeconds": limits.cpuSeconds = number
            case "processes": limits.processes = number
            default: continue
            }
        }
        return limits
    }

    /// The text from `start` (just inside an opening brace) to its matching closing brace.
    private static func block(in code: String, from start: String.Index) -> Substring? {
        var depth = 1
        var index = start
        while index < code.endIndex {
            switch code[index] {
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth == 0 { return code[start..<index] }
            default: break
            }
            index = code.index(after: index)
        }
        return nil
    }

    /// `text` without `//` and `/* */` comments (string literals with `//` inside are rare in
    /// these declarations; a URL in a string is kept by requiring no `:` before `//`).
    private static func strippingComments(_ text: String) -> String {
        var result = text.replacing(/\/\*[\s\S]*?\*\//, with: "")
        result = result.replacing(/(?m)(^|[^:"])\/\/.*$/) { match in String(match.1) }
        return result
    }
}
