public import AppexCore
public import Foundation
import Synchronization

/// An app group's shared defaults with `UserDefaults`' own API, for code written against
/// `UserDefaults(suiteName: "group.…")`: a failable initializer for the running process, and
/// setters that do not throw.
///
/// ```swift
/// private let defaults = GroupDefaults(suiteName: "group.com.example.app")!
/// defaults.set(data, forKey: "haapi.token")
/// ```
///
/// Foundation's `UserDefaults(suiteName:)` on Linux writes a file of the process's own, which
/// no other process reads; these go to the group's ``SharedDefaults``, which every process of
/// the group shares. As with `UserDefaults`, a write that fails does not throw: it is kept in
/// ``lastError`` (and a read that fails reads as absent). Code that must know uses ``suite``
/// and its throwing API.
public final class GroupDefaults: Sendable {
    /// The group's suite.
    public let suite: SharedDefaults
    private let failure = Mutex<AppexError?>(nil)

    /// The defaults of the app group `suiteName` for the running process
    /// (`ProcessContext.current()`), or `nil` when the process cannot open it: not entitled to
    /// the group, or not an Appex process. `AppGroup(_:context:)` says why.
    public convenience init?(suiteName: String) {
        guard let context = try? ProcessContext.current(),
            let group = try? AppGroup(suiteName, context: context),
            let suite = try? SharedDefaults(group: group)
        else { return nil }
        self.init(suite: suite)
    }

    /// The defaults of `suite`.
    public init(suite: SharedDefaults) { self.suite = suite }

    /// What the last write that failed said (`nil` once a write succeeds): the value was not
    /// stored.
    public var lastError: AppexError? { failure.withLock { $0 } }

    /// Stores `value` for `key` (`nil` removes it); a failure is kept in ``lastError``.
    public func set(_ value: PropertyListValue?, forKey key: String) {
        do {
            try suite.set(value, forKey: key)
            failure.withLock { $0 = nil }
        } catch {
            failure.withLock { $0 = error }
        }
    }

    /// Stores a Boolean.
    public func set(_ value: Bool, forKey key: String) { set(.boolean(value), forKey: key) }
    /// Stores an integer.
    public func set(_ value: Int, forKey key: String) { set(.integer(value), forKey: key) }
    /// Stores a number.
    public func set(_ value: Double, forKey key: String) { set(.real(value), forKey: key) }
    /// Stores a string.
    public func set(_ value: String, forKey key: String) { set(.string(value), forKey: key) }
    /// Stores bytes.
    public func set(_ value: Data, forKey key: String) { set(.data(value), forKey: key) }
    /// Stores a date.
    public func set(_ value: Date, forKey key: String) { set(.date(value), forKey: key) }
    /// Removes `key`.
    public func removeObject(forKey key: String) { set(nil, forKey: key) }

    /// The value, or `nil`.
    public func object(forKey key: String) -> PropertyListValue? { suite.object(forKey: key) }
    /// The value as a Boolean (`false` when absent).
    public func bool(forKey key: String) -> Bool { suite.bool(forKey: key) }
    /// The value as an integer (0 when absent).
    public func integer(forKey key: String) -> Int { suite.integer(forKey: key) }
    /// The value as a number (0 when absent).
    public func double(forKey key: String) -> Double { suite.double(forKey: key) }
    /// The value as a string, or `nil`.
    public func string(forKey key: String) -> String? { suite.string(forKey: key) }
    /// The value as bytes, or `nil`.
    public func data(forKey key: String) -> Data? { suite.data(forKey: key) }
    /// The value as a date, or `nil`.
    public func date(forKey key: String) -> Date? { suite.date(forKey: key) }
}
