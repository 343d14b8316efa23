/// A control (iOS 18), as WidgetKit's `ControlWidget`: a button or a switch that performs an
/// ``AppIntent``. The widget desktop shows it as a small tile with the control; using it
/// performs the intent in the extension and the tile reads the control's value again.
///
/// ```swift
/// struct TimerControl: ControlWidget {
///     var body: some ControlWidgetConfiguration {
///         StaticControlConfiguration(kind: "Timer", provider: TimerValue()) { isRunning in
///             ControlWidgetToggle("Timer", isOn: isRunning, action: SetTimerIntent()) { isOn in
///                 Label(isOn ? "Running" : "Stopped", systemImage: "timer")
///             }
///         }
///         .displayName("Timer")
///     }
/// }
/// ```
///
/// A bundle lists controls beside widgets (`WidgetBundle`'s body takes both).
public protocol ControlWidget {
    /// The configuration's type.
    associatedtype Body: ControlWidgetConfiguration
    /// Makes the control; called once per process.
    init()
    /// What the control is: its kind, value and template.
    @ControlWidgetConfigurationBuilder var body: Body { get }
}

/// What a ``ControlWidget``'s body is: ``StaticControlConfiguration``, with modifiers.
public protocol ControlWidgetConfiguration {
    /// Implementation detail: the widget the host shows for this control. Appex's
    /// configurations provide theirs; any other serves none. Neither call nor implement it.
    var _widgets: _WidgetList { get }
}

extension ControlWidgetConfiguration {
    /// Implementation detail: a configuration Appex does not make serves no widget.
    public var _widgets: _WidgetList { _WidgetList([]) }
}

/// Builds a control's configuration: one, as WidgetKit's builder takes.
@resultBuilder
public enum ControlWidgetConfigurationBuilder {
    /// The configuration.
    public static func buildBlock<Content: ControlWidgetConfiguration>(_ content: Content) -> Content { content }
}

/// A control as a bundle holds it: the widget the host shows for it.
public struct ControlWidgetInBundle<Control: ControlWidget>: Widget {
    let control: Control

    /// Makes the control.
    public init() { control = Control() }

    init(_ control: Control) { self.control = control }

    /// The control's configuration, as widgets are served.
    public var body: ModifiedWidgetConfiguration {
        ModifiedWidgetConfiguration(resolvedWidgets: control.body._widgets.all)
    }
}

extension WidgetBundleBuilder {
    /// A widget.
    public static func buildExpression<Content: Widget>(_ content: Content) -> Content { content }

    /// A control, shown as a widget.
    public static func buildExpression<Control: ControlWidget>(_ control: Control) -> ControlWidgetInBundle<Control> {
        ControlWidgetInBundle(control)
    }
}

/// Gives a control's value: the value the template is drawn with, as WidgetKit's.
public protocol ControlValueProvider: Sendable {
    /// The value's type (`Bool` for a switch).
    associatedtype Value: Sendable
    /// The value shown in a preview and until the first ``currentValue()``.
    var previewValue: Value { get }
    /// The value now.
    func currentValue() async throws -> Value
}

/// An intent a control's switch performs with its new value set, as App Intents' `SetValueIntent`.
public protocol SetValueIntent: AppIntent {
    /// The value's type.
    associatedtype ValueType
    /// The value the control sets (the switch's new state).
    var value: ValueType { get set }
}
