/// A value kept in user defaults, as SwiftUI's `@AppStorage`: read when the view is drawn (a
/// widget's view is drawn for each entry), written through at once.
///
/// On Linux a Foundation suite (`UserDefaults(suiteName: "group.…")`) is this process's own: a
/// sandboxed widget does not see the app's, so a value the app sets does not reach the widget
/// this way. Share it through the app group with `GroupDefaults(suiteName:)` (AppexStore), as
/// Examples/README.md's "The seeds' code on Linux" says; `@AppStorage` then keeps what the widget itself sets.
///
/// ```swift
/// @AppStorage("supercharged", store: UserDefaults(suiteName: "group.example"))
/// var supercharged: Bool = false
/// ```
@propertyWrapper
public struct AppStorage<Value> {
    private let key: String
    private let defaultValue: Value
    private let store: UserDefaults

    /// The value under `key` in `store` (the standard defaults when `nil`), or `wrappedValue`
    /// when there is none of this type.
    public init(wrappedValue: Value, _ key: String, store: UserDefaults? = nil) {
        self.key = key
        defaultValue = wrappedValue
        self.store = store ?? .standard
    }

    /// The value now.
    public var wrappedValue: Value {
        get { (store.object(forKey: key) as? Value) ?? defaultValue }
        nonmutating set { store.set(newValue, forKey: key) }
    }
}

extension UserDefaults {
    /// The object under `key`, under the key-value coding name code written for Apple platforms
    /// uses (`UserDefaults(suiteName:)?.value(forKey:)`); swift-corelibs-foundation has no
    /// key-value coding.
    public func value(forKey key: String) -> Any? { object(forKey: key) }

    /// Sets `value` under `key`, under the key-value coding name (`setValue(_:forKey:)`).
    public func setValue(_ value: Any?, forKey key: String) { set(value, forKey: key) }
}
