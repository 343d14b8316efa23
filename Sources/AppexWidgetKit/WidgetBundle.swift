/// Several widgets in one extension, as in WidgetKit.
///
/// ```swift
/// @main
/// struct ContactsWidgets: WidgetBundle {
///     var body: some Widget {
///         RecentContactsWidget()
///         ContactCountWidget()
///     }
/// }
/// ```
public protocol WidgetBundle {
    /// The widgets' type.
    associatedtype Body: Widget
    /// Makes the bundle; called once per process.
    init()
    /// The widgets, built with ``WidgetBundleBuilder``.
    @WidgetBundleBuilder var body: Body { get }
}

/// Builds a widget bundle's widgets from a closure's statements.
@resultBuilder
public enum WidgetBundleBuilder {
    /// One widget.
    public static func buildBlock<Content: Widget>(_ content: Content) -> Content { content }

    /// Several widgets.
    public static func buildBlock<each Content: Widget>(
        _ content: repeat each Content
    ) -> WidgetBundleContent<
        repeat each Content
    > {
        WidgetBundleContent(repeat each content)
    }

    /// A widget under an `if` without `else`.
    public static func buildOptional(_ content: AnyWidget?) -> AnyWidget { content ?? AnyWidget() }

    /// A widget under an `if` without `else`.
    public static func buildOptional<Content: Widget>(_ content: Content?) -> AnyWidget { AnyWidget(content) }

    /// The `if` branch.
    public static func buildEither<Content: Widget>(first content: Content) -> AnyWidget { AnyWidget(content) }

    /// The `else` branch.
    public static func buildEither<Content: Widget>(second content: Content) -> AnyWidget { AnyWidget(content) }

    /// A widget under `if #available(…)`: on Linux every branch is available.
    public static func buildLimitedAvailability<Content: Widget>(_ content: Content) -> AnyWidget { AnyWidget(content) }
}

/// A widget whose type is erased, or no widget: what a bundle's `if` makes.
public struct AnyWidget: Widget {
    let widgets: [ResolvedWidget]

    init<Content: Widget>(_ widget: Content?) { widgets = widget?.body._widgets.all ?? [] }

    /// No widget.
    public init() { widgets = [] }

    /// The erased widget's configuration.
    public var body: ModifiedWidgetConfiguration { ModifiedWidgetConfiguration(resolvedWidgets: widgets) }
}

/// Several widgets side by side: what a ``WidgetBundle``'s body of several widgets is.
public struct WidgetBundleContent<each Content: Widget>: Widget {
    let widgets: (repeat each Content)

    init(_ widgets: repeat each Content) { self.widgets = (repeat each widgets) }

    /// Makes each widget.
    public init() { widgets = (repeat (each Content).init()) }

    /// Every widget's configuration.
    public var body: ModifiedWidgetConfiguration {
        var all: [ResolvedWidget] = []
        for widget in repeat each widgets { all += widget.body._widgets.all }
        return ModifiedWidgetConfiguration(resolvedWidgets: all)
    }
}

extension Widget {
    /// Runs the widget extension: answers the widget host's requests for this widget, then exits.
    /// With `--print-binding` prints the system widget point and exits (used by `appex bundle`).
    /// Started by hand, not by the widget host, it says so and exits with status 1.
    /// Its work runs as a task while the main thread serves the main queue, without
    /// `dispatch_main`, as an app extension's main does (docs/decisions/0168).
    public static func main() {
        WidgetExtensionRuntime.run(Self().body._widgets.all)
    }
}

extension WidgetBundle {
    /// Runs the widget extension: answers the widget host's requests for these widgets, then
    /// exits. With `--print-binding` prints the system widget point and exits. Started by hand,
    /// not by the widget host, it says so and exits with status 1.
    /// Its work runs as a task while the main thread serves the main queue, without
    /// `dispatch_main`, as an app extension's main does (docs/decisions/0168).
    public static func main() {
        WidgetExtensionRuntime.run(Self().body.body._widgets.all)
    }
}
