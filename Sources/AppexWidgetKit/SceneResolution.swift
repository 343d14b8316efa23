/// What a scene collects while its view is drawn: each control's handler, numbered in the order
/// the renderers meet the controls, and the places of its views' `@State`.
final class SceneResolution: @unchecked Sendable {  // used by the one drawing of its scene
    @TaskLocal static var current: SceneResolution?

    /// What a control does when the host sends it an event.
    enum Handler {
        case action(() -> Void)
        case toggle(Binding<Bool>)
        case text(Binding<String>)
        case choice([() -> Void])
    }

    let store: SceneStateStore
    private(set) var handlers: [Handler] = []
    private var occurrences: [ObjectIdentifier: Int] = [:]

    init(store: SceneStateStore) { self.store = store }

    /// Registers `handler`; returns its control's number.
    func register(_ handler: Handler) -> Int {
        handlers.append(handler)
        return handlers.count - 1
    }

    /// Binds `view`'s `@State` properties to the storage of its place: its type, and how many
    /// views of that type were drawn before it.
    func bindState<V: View>(of view: V) {
        let type = ObjectIdentifier(V.self)
        let occurrence = occurrences[type, default: 0]
        occurrences[type] = occurrence + 1
        let mirror = Mirror(reflecting: view)
        guard !mirror.children.isEmpty else { return }
        let place = "\(String(reflecting: V.self))#\(occurrence)"
        for child in mirror.children {
            if let property = child.value as? any SceneStateProperty {
                property.bind(to: store, key: place + "." + (child.label ?? "?"))
            }
        }
    }
}

/// A scene's control as it crosses to the host: its number (its handler in the extension; -1
/// outside a scene, where it does nothing) and what it shows.
package struct SceneControl: Codable, Hashable, Sendable {
    package enum Kind: Codable, Hashable, Sendable {
        case button
        case toggle(isOn: Bool)
        case textField(text: String, prompt: String)
        case picker(selected: Int, options: [String])
    }

    package var index: Int
    package var kind: Kind

    package init(index: Int, kind: Kind) {
        self.index = index
        self.kind = kind
    }
}

extension View {
    /// Marks this view as the option of a `Picker` that selects `tag`.
    public func tag<Tag: Hashable>(_ tag: Tag) -> TaggedView<Self, Tag> { TaggedView(content: self, tag: tag) }
}

/// A view marked with a `Picker` option's value (``View/tag(_:)``).
public struct TaggedView<Content: View, Tag: Hashable>: View {
    let content: Content
    let tag: Tag

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        let node = ViewResolver.node(of: view.content)
        TagCollector.current?.options.append((AnyHashable(view.tag), node))
        resolution.node = node
    }
}

/// The options a `Picker`'s content declares with `.tag(_:)`, collected as it is drawn.
final class TagCollector: @unchecked Sendable {  // used by the one drawing of its picker
    @TaskLocal static var current: TagCollector?
    var options: [(tag: AnyHashable, label: ViewNode)] = []
}
