/// What a control shows and does, as WidgetKit's `ControlWidgetTemplate`:
/// ``ControlWidgetButton`` or ``ControlWidgetToggle``.
public protocol ControlWidgetTemplate: View {}

/// Builds a control's template: one, as WidgetKit's builder takes.
@resultBuilder
public enum ControlWidgetTemplateBuilder {
    /// The template.
    public static func buildBlock<Content: ControlWidgetTemplate>(_ content: Content) -> Content { content }
}

/// A control's button: performs `action` when used, as WidgetKit's.
public struct ControlWidgetButton<Label: View, Action: AppIntent>: ControlWidgetTemplate {
    let action: Action
    let label: Label

    /// A button drawn as `label` that performs `action`.
    public init(action: Action, @ViewBuilder label: () -> Label) {
        self.action = action
        self.label = label()
    }

    /// The button.
    public var body: some View { Button(intent: action) { label } }
}

/// A control's switch: shows its value and performs `action` with the new value set, as
/// WidgetKit's.
public struct ControlWidgetToggle<Label: View, Action: SetValueIntent>: ControlWidgetTemplate
where Action.ValueType == Bool {
    let isOn: Bool
    let action: Action
    let label: Label

    /// A switch drawn as `label`, on when `isOn`, performing `action` with `value` set to the
    /// switch's new state.
    public init(isOn: Bool, action: Action, @ViewBuilder label: () -> Label) {
        self.isOn = isOn
        self.action = action
        self.label = label()
    }

    /// A switch titled `title` whose value is drawn by `valueLabel`.
    public init<ValueLabel: View>(
        _ title: some StringProtocol,
        isOn: Bool,
        action: Action,
        @ViewBuilder valueLabel: (Bool) -> ValueLabel
    ) where Label == VStack<TupleView<Text, ValueLabel>> {
        let value = valueLabel(isOn)
        self.init(isOn: isOn, action: action) {
            VStack {
                Text(title)
                value
            }
        }
    }

    /// The switch.
    public var body: some View {
        var next = action
        next.value = !isOn
        return Toggle(isOn: isOn, intent: next) { label }
    }
}
