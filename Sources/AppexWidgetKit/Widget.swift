/// A widget, as in WidgetKit: its kind, the provider of its timeline and the view of an entry.
///
/// ```swift
/// @main
/// struct MyWidget: Widget {
///     let kind: String = "MyWidget"
///     var body: some WidgetConfiguration {
///         StaticConfiguration(kind: kind, provider: Provider()) { entry in
///             MyWidgetEntryView(entry: entry)
///         }
///         .configurationDisplayName("My Widget")
///         .description("This is an example widget.")
///     }
/// }
/// ```
///
/// Marked `@main`, a widget is a whole widget extension: it binds to the system's widget point
/// (`com.apple.widgetkit-extension`) with no code of its own, and serves the widget host.
public protocol Widget {
    /// The configuration's type.
    associatedtype Body: WidgetConfiguration
    /// Makes the widget; called once per process.
    init()
    /// What the widget is: its kind, provider, view and description.
    var body: Body { get }
}

/// A description of a widget: ``StaticConfiguration`` and what its modifiers return.
public protocol WidgetConfiguration {
    /// Implementation detail: the widgets this configuration serves. Appex's configurations
    /// provide theirs; any other serves none. Neither call nor implement it.
    var _widgets: _WidgetList { get }
}

extension WidgetConfiguration {
    /// Implementation detail: a configuration Appex does not make serves no widget.
    public var _widgets: _WidgetList { _WidgetList([]) }
}

/// Implementation detail of ``WidgetConfiguration`` and ``ControlWidgetConfiguration``: the
/// widgets a configuration serves. Read through a protocol requirement rather than a dynamic
/// cast, which in a new process scans every protocol conformance of the binary once per
/// configuration type: nine scans before a widget's first reply (decision 0168).
public struct _WidgetList {
    let all: [ResolvedWidget]
    init(_ all: [ResolvedWidget]) { self.all = all }
}

/// A widget the user does not configure: a kind, a provider and the view of each entry.
public struct StaticConfiguration<Content: View & SendableMetatype>: WidgetConfiguration {
    let widget: ResolvedWidget
    /// Implementation detail: the one widget this configuration describes.
    public var _widgets: _WidgetList { _WidgetList([widget]) }

    /// A widget of `kind` whose entries `provider` makes and `content` draws.
    ///
    /// - Parameters:
    ///   - kind: the widget's name, unique in its extension: `WidgetCenter` reloads by it.
    ///   - provider: makes placeholders, snapshots and timelines.
    ///   - content: the view of one entry.
    public init<Provider: TimelineProvider>(
        kind: String,
        provider: Provider,
        @ViewBuilder content: @escaping @Sendable (Provider.Entry) -> Content
    ) {
        widget = ResolvedWidget(kind: kind, provider: provider, content: content)
    }
}

/// A configuration with its description changed: what the configuration modifiers return.
public struct ModifiedWidgetConfiguration: WidgetConfiguration {
    let resolvedWidgets: [ResolvedWidget]
    /// Implementation detail: the widgets, as modified.
    public var _widgets: _WidgetList { _WidgetList(resolvedWidgets) }
}

extension WidgetConfiguration {
    private func changing(_ change: (inout WidgetDescriptor) -> Void) -> ModifiedWidgetConfiguration {
        var widgets = _widgets.all
        for index in widgets.indices { change(&widgets[index].descriptor) }
        return ModifiedWidgetConfiguration(resolvedWidgets: widgets)
    }

    /// The name people see in the widget list.
    public func configurationDisplayName<S: StringProtocol>(_ name: S) -> ModifiedWidgetConfiguration {
        changing { $0.displayName = String(name) }
    }
    /// The name people see in the widget list, from a text's characters.
    public func configurationDisplayName(_ name: Text) -> ModifiedWidgetConfiguration {
        changing { $0.displayName = name.plainText }
    }
    /// What the widget shows, in a sentence.
    public func description<S: StringProtocol>(_ description: S) -> ModifiedWidgetConfiguration {
        changing { $0.description = String(description) }
    }
    /// What the widget shows, from a text's characters.
    public func description(_ description: Text) -> ModifiedWidgetConfiguration {
        changing { $0.description = description.plainText }
    }
    /// The families the widget comes in; the first is the one shown unless another is asked for.
    public func supportedFamilies(_ families: [WidgetFamily]) -> ModifiedWidgetConfiguration {
        changing { $0.supportedFamilies = families.isEmpty ? WidgetFamily.systemFamilies : families }
    }
    /// Accepted and ignored on Linux: renderers draw no system margins.
    public func contentMarginsDisabled() -> ModifiedWidgetConfiguration { changing { _ in } }
    /// Accepted and ignored on Linux: the background is always drawn.
    public func containerBackgroundRemovable(_ isRemovable: Bool = true) -> ModifiedWidgetConfiguration {
        changing { _ in }
    }
    /// Accepted and ignored on Linux.
    public func promptsForUserConfiguration() -> ModifiedWidgetConfiguration { changing { _ in } }
}

extension Text {
    /// The characters of the verbatim runs (dates are left out).
    var plainText: String {
        runs.map { run in
            if case .verbatim(let string) = run.content { return string }
            return ""
        }.joined()
    }
}

/// What the widget host learns about each widget of an extension.
public struct WidgetDescriptor: Sendable, Hashable, Codable {
    /// The widget's kind.
    public var kind: String
    /// The name people see (the kind unless the widget names itself).
    public var displayName: String
    /// What the widget shows, in a sentence; may be empty.
    public var description: String
    /// The families it comes in, the one shown by default first.
    public var supportedFamilies: [WidgetFamily]
    /// Whether its person configures it (an `AppIntentConfiguration` or `IntentConfiguration`):
    /// the widget host then keeps a configuration for each placed widget and sends it.
    public var isConfigurable: Bool
    /// The parameters its person sets; empty for a widget configured by presets alone.
    public var parameters: [WidgetParameter]
    /// The configurations it suggests (its provider's `recommendations()`).
    public var recommendations: [WidgetRecommendation]

    /// The start of a Live Activity's kind (``ActivityConfiguration``): `activity:` and its
    /// attributes type's name.
    public static let activityPrefix = "activity:"

    /// Whether it draws Live Activities (an ``ActivityConfiguration``) rather than timelines:
    /// the widget host shows it only while an activity of its attributes runs.
    public var isActivity: Bool { kind.hasPrefix(Self.activityPrefix) }

    /// Describes a widget.
    public init(
        kind: String,
        displayName: String,
        description: String,
        supportedFamilies: [WidgetFamily],
        isConfigurable: Bool = false,
        parameters: [WidgetParameter] = [],
        recommendations: [WidgetRecommendation] = []
    ) {
        self.kind = kind
        self.displayName = displayName
        self.description = description
        self.supportedFamilies = supportedFamilies
        self.isConfigurable = isConfigurable
        self.parameters = parameters
        self.recommendations = recommendations
    }

    private enum CodingKeys: String, CodingKey {
        case kind, displayName, description, supportedFamilies, isConfigurable, parameters, recommendations
    }

    /// Decodes a descriptor; one stored before widgets were configurable is a static widget's.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        displayName = try container.decode(String.self, forKey: .displayName)
        description = try container.decode(String.self, forKey: .description)
        supportedFamilies = try container.decode([WidgetFamily].self, forKey: .supportedFamilies)
        isConfigurable = try container.decodeIfPresent(Bool.self, forKey: .isConfigurable) ?? false
        parameters = try container.decodeIfPresent([WidgetParameter].self, forKey: .parameters) ?? []
        recommendations = try container.decodeIfPresent([WidgetRecommendation].self, forKey: .recommendations) ?? []
    }
}
