/// A field that edits text, as SwiftUI's `TextField`: in a scene, what a person types sets the
/// binding and draws the scene again.
public struct TextField<Label: View>: View {
    let text: Binding<String>
    let prompt: String
    let label: Label

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        let index = SceneResolution.current?.register(.text(view.text)) ?? -1
        let control = SceneControl(index: index, kind: .textField(text: view.text.wrappedValue, prompt: view.prompt))
        resolution.node = .sceneControl(control, label: ViewResolver.node(of: view.label))
    }
}

extension TextField where Label == Text {
    /// A text field titled `title` that edits `text`, as SwiftUI's `TextField(_:text:)`.
    public init<S: StringProtocol>(_ title: S, text: Binding<String>) {
        self.text = text
        prompt = String(title)
        label = Text(title)
    }

    /// A text field titled `title` that edits `text`, showing `prompt` while it is empty.
    public init<S: StringProtocol>(_ title: S, text: Binding<String>, prompt: String) {
        self.text = text
        self.prompt = prompt
        label = Text(title)
    }
}

/// A choice among options, as SwiftUI's `Picker`: its content's views, each marked with
/// `.tag(_:)`, are the options; choosing one sets `selection` to its tag.
public struct Picker<Label: View, SelectionValue: Hashable, Content: View>: View {
    let selection: Binding<SelectionValue>
    let label: Label
    let content: Content

    /// A picker drawn as `label` that sets `selection` to the tag of the option chosen.
    public init(
        selection: Binding<SelectionValue>,
        @ViewBuilder content: () -> Content,
        @ViewBuilder label: () -> Label
    ) {
        self.selection = selection
        self.content = content()
        self.label = label()
    }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        let collector = TagCollector()
        _ = TagCollector.$current.withValue(collector) { ViewResolver.node(of: view.content) }
        let options = collector.options
        let current = view.selection.wrappedValue
        let selected = options.firstIndex { $0.tag == AnyHashable(current) } ?? -1
        let selection = view.selection
        let setters: [() -> Void] = options.map { option in
            { if let value = option.tag.base as? SelectionValue { selection.wrappedValue = value } }
        }
        let index = SceneResolution.current?.register(.choice(setters)) ?? -1
        let labels = options.map { ViewTree(root: $0.label).texts.joined(separator: " ") }
        let control = SceneControl(index: index, kind: .picker(selected: selected, options: labels))
        resolution.node = .sceneControl(control, label: ViewResolver.node(of: view.label))
    }
}

extension Picker where Label == Text {
    /// A picker titled `title` that sets `selection`, as SwiftUI's `Picker(_:selection:content:)`.
    public init<S: StringProtocol>(_ title: S, selection: Binding<SelectionValue>, @ViewBuilder content: () -> Content)
    {
        self.selection = selection
        self.content = content()
        label = Text(title)
    }
}
