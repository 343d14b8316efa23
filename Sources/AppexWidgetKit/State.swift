import Synchronization

/// A value a scene's view owns and changes, as SwiftUI's `@State`: reading it in `body` draws
/// it; changing it (from a `Button`'s action, or through its `Binding`, `$value`) draws the
/// scene again.
///
/// State is kept by the view's place in the scene: its type, and how many views of that type
/// came before it as the scene was drawn. A view that keeps its place keeps its state. In a
/// widget, which draws each entry once, state is only its initial value.
@propertyWrapper
public struct State<Value>: SceneStateProperty {
    let box: StateBox<Value>

    /// State starting at `value`.
    public init(wrappedValue value: Value) { box = StateBox(value) }

    /// The current value.
    public var wrappedValue: Value {
        get { box.value }
        nonmutating set { box.value = newValue }
    }

    /// A binding to the value, for a control that changes it (`Toggle(isOn: $flag)`).
    public var projectedValue: Binding<Value> {
        let box = self.box
        return Binding(get: { box.value }, set: { box.value = $0 })
    }

    func bind(to store: SceneStateStore, key: String) { box.bind(to: store, key: key) }
}

/// A value owned elsewhere that a control reads and writes, as SwiftUI's `Binding`.
@propertyWrapper
public struct Binding<Value> {
    private let read: () -> Value
    private let write: (Value) -> Void

    /// A binding that reads with `get` and writes with `set`.
    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {
        read = get
        write = set
    }

    /// A binding to a value that never changes.
    public static func constant(_ value: Value) -> Binding<Value> { Binding(get: { value }, set: { _ in }) }

    /// The value.
    public var wrappedValue: Value {
        get { read() }
        nonmutating set { write(newValue) }
    }

    /// The binding itself (`$binding` in a view that received one).
    public var projectedValue: Binding<Value> { self }
}

/// A `@State` property, which a scene binds to the storage of its view's place before `body`.
protocol SceneStateProperty {
    func bind(to store: SceneStateStore, key: String)
}

/// Where a `@State` keeps its value: its own until a scene binds it, then the scene's.
final class StateBox<Value>: @unchecked Sendable {  // a scene uses it from one request at a time
    private var local: Value
    private var slot: SceneStateStore.Slot?
    private var key = ""

    init(_ value: Value) { local = value }

    var value: Value {
        get { (slot?.value as? Value) ?? local }
        set {
            if let slot {
                slot.value = newValue
                slot.store?.changed()
            } else {
                local = newValue
            }
        }
    }

    func bind(to store: SceneStateStore, key: String) {
        slot = store.slot(key, initial: local)
        self.key = key
    }
}

/// A scene's state: a slot per view place, kept while the scene lives.
final class SceneStateStore: @unchecked Sendable {  // used by one request of its scene at a time
    final class Slot {
        var value: Any
        weak var store: SceneStateStore?
        init(_ value: Any, store: SceneStateStore) {
            self.value = value
            self.store = store
        }
    }

    private var slots: [String: Slot] = [:]
    /// Whether a value changed since the scene was last drawn.
    private(set) var isDirty = false

    func slot(_ key: String, initial: Any) -> Slot {
        if let slot = slots[key] { return slot }
        let slot = Slot(initial, store: self)
        slots[key] = slot
        return slot
    }

    func changed() { isDirty = true }
    func drawn() { isDirty = false }
}
