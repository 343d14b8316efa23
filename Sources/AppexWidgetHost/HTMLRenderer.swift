public import AppexWidgetKit
import Foundation

/// Draws widgets as HTML: a fragment per widget, or a self-contained page of several.
///
/// ```html
/// <article class="widget family-systemSmall" data-kind="com.example.weather">
/// <header>Weather</header>
/// <div class="content">…</div>
/// <p class="status">stale: …</p>
/// </article>
/// ```
///
/// Stacks become flex containers, fonts, weights and colours classes of the page's style sheet,
/// and links (`Link`, `widgetURL`) `<a href="…" data-open-url="…">` — but only when the URL's
/// scheme is not `javascript`, `data`, `vbscript` or `file` (the content is drawn without a link
/// otherwise). Everything the widget sent (texts, its kind, its name, its status, its URLs) is
/// escaped, with control characters replaced by U+FFFD; no string from a widget ever goes into a
/// `class` or `style` attribute. The page loads nothing and runs no script.
public struct HTMLRenderer: Sendable {
    /// The time zone dates in texts are drawn in.
    public var timeZone: TimeZone
    /// The locale of `.time` and `.date` texts (`en_US_POSIX` unless given).
    public var locale: Locale
    /// The attribute that carries a node's sizes and colours: `style`, or `data-style` for a page
    /// whose content security policy forbids inline styles (the window applies them through the
    /// CSSOM, which that policy allows).
    package var styleAttribute = "style"
    /// Whether links carry no `href`, only `data-open-url`: for a page whose host opens them
    /// itself, after checking them (the window).
    package var linksThroughHost = false

    /// A renderer drawing dates in `timeZone` and `locale`.
    public init(timeZone: TimeZone = .current, locale: Locale = Locale(identifier: "en_US_POSIX")) {
        self.timeZone = timeZone
        self.locale = locale
    }

    /// `frame` as one `<article>`: its display name in a `<header>`, its content, and its status
    /// line in a `<p class="status">` when it has one. The classes are those of ``page(_:title:)``'s
    /// style sheet.
    public func fragment(_ frame: WidgetFrame) -> String {
        var html = "<article class=\"widget family-\(frame.family.rawValue)\" data-kind=\""
        html += HTMLEscaping.escape(frame.kind) + "\">\n"
        html += "<header>" + HTMLEscaping.escape(frame.displayName) + "</header>\n"
        html += "<div class=\"content\">"
        if let tree = frame.tree {
            var writer = HTMLWriter(
                dates: DateText(timeZone: timeZone, locale: locale, now: frame.now),
                styleAttribute: styleAttribute,
                linksThroughHost: linksThroughHost
            )
            writer.write(tree.root, HTMLWriter.Context())
            html += writer.output
        } else {
            html += "<p class=\"placeholder\">No content yet</p>"
        }
        html += "</div>\n"
        if let status = frame.status {
            html += "<p class=\"status\">⚠ " + HTMLEscaping.escape(status) + "</p>\n"
        }
        return html + "</article>\n"
    }

    /// A complete HTML5 document titled `title`, showing `frames` side by side: UTF-8, one inline
    /// style sheet sizing each family as `WidgetFamily.displaySize` says, no scripts, and a content
    /// security policy that lets it load nothing.
    public func page(_ frames: [WidgetFrame], title: String) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLEscaping.escape(title))</title>
            <style>
            \(HTMLStyleSheet.css)</style>
            </head>
            <body>
            <main class="widgets">

            """
        for frame in frames { html += fragment(frame) }
        html += "</main>\n</body>\n</html>\n"
        return html
    }
}
