import AppexWidgetHost

/// Markup for a window's page, escaped by construction: text and attribute values are escaped
/// as they are added, and element names come from Appex's own code. Nothing an extension, a
/// contact or a widget supplies can become markup.
public struct Markup: Sendable, Hashable {
    /// The HTML.
    package let html: String

    private init(html: String) { self.html = html }

    /// `text`, escaped: `<`, `>`, `&`, quotes, and control characters and bidirectional
    /// overrides (shown as U+FFFD).
    public static func text(_ text: String) -> Markup {
        Markup(html: escape(text))
    }

    /// An element `name` with `attributes` (values escaped) around `children`. `name` and the
    /// attribute names are `StaticString`s: the caller's own code, never data.
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

    /// `text` escaped for an element's content or an attribute's value: the widget host's
    /// escaping, the one place where text becomes HTML.
    package static func escape(_ text: String) -> String { HTMLEscaping.escape(text) }
}
