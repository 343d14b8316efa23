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
                    problems.append(
                        BundleProblem(
                            .unexpandedBuildSetting,
                            file: file,
                            key: path,
                            message: "unexpanded build setting \(name) in \(path)"
                        )
                    )
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
