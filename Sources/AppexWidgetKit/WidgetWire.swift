/// The messages between the widget host and a widget extension, written by hand
/// (`WidgetWire+Coding.swift`).
/// Requests go one at a time; the extension exits when the host closes the connection.
package indirect enum WidgetRequest: Sendable, Hashable {
    /// The extension's widgets.
    case describe
    /// A placeholder entry of `kind`.
    case placeholder(kind: String, family: WidgetFamily)
    /// A snapshot entry of `kind`.
    case snapshot(kind: String, family: WidgetFamily, isPreview: Bool)
    /// A timeline of `kind`.
    case timeline(kind: String, family: WidgetFamily)
    /// Performs the intent of a control a person tapped on a widget of `kind`.
    case performIntent(kind: String, control: IntentControl)
    /// `request` (a placeholder, snapshot or timeline) for a placed widget configured as
    /// `configuration` says (a JSON object of its intent's parameters by name); sent only to
    /// widgets that describe themselves as configurable.
    case configured(configuration: [UInt8], request: WidgetRequest)
}

/// An extension's answer.
package enum WidgetReply: Sendable, Hashable {
    case widgets([WidgetDescriptor])
    case entry(EncodedEntry)
    case timeline(EncodedTimeline)
    /// The intent ran.
    case performed
}

/// An entry as it crosses: its date, relevance and encoded view tree (see ``ViewTree``).
package struct EncodedEntry: Codable, Sendable, Hashable {
    /// Seconds since 1970.
    package var date: Double
    package var relevance: TimelineEntryRelevance?
    package var tree: [UInt8]
    package init(date: Double, relevance: TimelineEntryRelevance?, tree: [UInt8]) {
        self.date = date
        self.relevance = relevance
        self.tree = tree
    }
}

/// A timeline as it crosses.
package struct EncodedTimeline: Codable, Sendable, Hashable {
    package var entries: [EncodedEntry]
    package var policy: EncodedPolicy
    package init(entries: [EncodedEntry], policy: EncodedPolicy) {
        self.entries = entries
        self.policy = policy
    }
}

/// A reload policy as it crosses (and as the widget host stores it).
package enum EncodedPolicy: Codable, Sendable, Hashable {
    case atEnd
    /// Seconds since 1970.
    case after(Double)
    case never

    init(_ policy: TimelineReloadPolicy) {
        switch policy.storage {
        case .atEnd: self = .atEnd
        case .after(let date): self = .after(date.timeIntervalSince1970)
        case .never: self = .never
        }
    }
}
