/// What a view can read about where it is shown, through ``Environment``.
public struct EnvironmentValues: Sendable {
    /// The family of the widget being drawn.
    public var widgetFamily: WidgetFamily = .systemSmall
    /// Always `.light` on Linux: renderers pick their own scheme.
    public var colorScheme: ColorScheme = .light
    /// Always `true`: a widget on Linux is never shown in a context that hides its content.
    public var showsWidgetContainerBackground = true
    /// Always `false` on Linux: no watch face draws a label beside the widget.
    public var showsWidgetLabel = false
    /// The scale of the display: 1 on Linux.
    public var displayScale: Double = 1
    /// Always `.fullColor` on Linux.
    public var widgetRenderingMode: WidgetRenderingMode = .fullColor
    /// Always `false` on Linux: the widget is never shown dimmed for the lock screen.
    public var isLuminanceReduced = false
    /// The width and height offered to the views inside the nearest fixed `.frame`, in points;
    /// `nil`: the widget's own. (Doubles, not a `CGSize`: a stored Foundation type would keep all
    /// of Foundation in every widget executable; see ``TimelineProviderContext/displaySize``.)
    package var offered: (width: Double, height: Double)?
    /// The action `.environment(\.openURL, …)` set; `nil` for the default.
    var openURLAction: OpenURLAction?

    /// The default values for a small widget.
    public init() {}

    package init(widgetFamily: WidgetFamily) { self.widgetFamily = widgetFamily }
}

/// Light or dark appearance.
public enum ColorScheme: Sendable, Hashable, CaseIterable {
    /// Light appearance.
    case light
    /// Dark appearance.
    case dark
}

/// How the system draws a widget; always full colour on Linux.
public struct WidgetRenderingMode: Sendable, Hashable {
    let name: String
    /// Full colour.
    public static let fullColor = WidgetRenderingMode(name: "fullColor")
    /// A single tint.
    public static let accented = WidgetRenderingMode(name: "accented")
    /// Vibrant, desaturated.
    public static let vibrant = WidgetRenderingMode(name: "vibrant")
}

/// Reads a value of the environment a view is resolved in, as SwiftUI's `@Environment` does.
///
/// ```swift
/// struct EntryView: View {
///     @Environment(\.widgetFamily) var family
///     var body: some View { Text(family == .systemSmall ? "S" : "Larger") }
/// }
/// ```
@propertyWrapper
public struct Environment<Value>: @unchecked Sendable {
    // @unchecked: the key path is immutable and only read; `KeyPath` is not marked Sendable.
    let keyPath: KeyPath<EnvironmentValues, Value>

    /// Reads the value at `keyPath`.
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) { self.keyPath = keyPath }

    /// The value, in the environment the view is being resolved in.
    public var wrappedValue: Value { ViewResolver.environment[keyPath: keyPath] }
}
