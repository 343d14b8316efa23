/// Markup for a window's page, escaped by construction: text and attribute values are escaped
/// as they are added, and element names come from Appex's own code. Nothing an extension, a
/// contact or a widget supplies can become markup.
public struct Markup: Sendable, Hashable {
    /// The HTML.
    package let html: String

    private init(html: String) { self.html = html }

    /// `text`, escaped: `<`, `>`, `&`, quotes, and control characters (shown as U+FFFD).
    public static func text(_ text: String) -> Markup {
        Markup(html: escape(text))
    }

    /// An element `name` with `attributes` (values escaped) around `children`. `name` and the
    /// attribute names are the caller's own, not data: they are checked to be plain names.
    public static func element(
        _ name: StaticString,
        _ attributes: KeyValuePairs<StaticString, String> = [:],
        _ children: [Markup] = []
    ) -> Markup {
        var html = "<\(name)"
        for (key, value) in attributes { html += " \(key)=\"\(escape(value))\"" }
        html += ">"
        for child in children { html += child.html }
        html += "</\(name)>"
        return Markup(html: html)
    }

    /// `children`, one after another.
    public static func group(_ children: [Markup]) -> Markup {
        Markup(html: children.map(\.html).joined())
    }

    /// Markup that an Appex renderer made and escaped itself (a widget's HTML fragment).
    package static func trusted(_ html: String) -> Markup { Markup(html: html) }

    /// `text` escaped for an element's content or an attribute's value.
    package static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\n", "\t": escaped.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                // C0 and C1 controls, bidirectional overrides and isolates: shown as U+FFFD.
                if value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                    || (0x2066...0x2069).contains(value)
                {
                    escaped += "\u{FFFD}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }
}
