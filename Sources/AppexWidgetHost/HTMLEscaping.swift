/// The one place where text from a widget, or any text a window's page shows, becomes HTML
/// (AppexWindow's `Markup` calls it).
package enum HTMLEscaping {
    /// `text` safe as an element's content or a double-quoted attribute's value: control
    /// characters replaced by U+FFFD, then `&`, `<`, `>`, `"` and `'` as character references.
    package static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.replacingControlCharacters.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The schemes a link from a widget may never have.
    static let refusedSchemes: Set<String> = ["javascript", "data", "vbscript", "file"]

    /// Whether `url` may become a link's `href`: it has a scheme, and the scheme is not
    /// `javascript`, `data`, `vbscript` or `file`, in any case.
    ///
    /// The scheme is read as a browser reads it: after dropping leading and trailing whitespace
    /// and control characters, and tabs and newlines anywhere (`java\tscript:` is `javascript:`).
    /// A URL without a scheme is refused too: a widget's links open its app, so they are absolute.
    package static func isSafeLink(_ url: String) -> Bool {
        let ignored: Set<Unicode.Scalar> = ["\t", "\n", "\r"]
        let scalars = url.unicodeScalars.filter { !ignored.contains($0) }
        let isTrimmed = { (scalar: Unicode.Scalar) in scalar.isControlCharacter || scalar.properties.isWhitespace }
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return false }
        var scheme = ""
        for scalar in scalars[first...] {
            if scalar == ":" { break }
            let isLetter = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            let isSchemeCharacter = isLetter || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar)
            guard scheme.isEmpty ? isLetter : isSchemeCharacter else { return false }
            scheme.unicodeScalars.append(scalar)
        }
        guard !scheme.isEmpty, scheme.count < scalars[first...].count else { return false }
        return !refusedSchemes.contains(scheme.lowercased())
    }
}
