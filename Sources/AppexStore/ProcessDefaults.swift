public import AppexCore
public import Foundation

/// A process's defaults wherever its data-sharing settings keep them — the app group's suite
/// when sharing is on, its own suite otherwise — with `UserDefaults`' API: setters that do not
/// throw. What the Salesforce SDK's `UserDefaults.msdkUserDefaults()` returns.
///
/// ```swift
/// let defaults = DataSharingHelper.shared.defaults   // or UserDefaults.msdkUserDefaults()
/// defaults.set(true, forKey: "userLoggedIn")
/// let loggedIn = defaults.bool(forKey: "userLoggedIn")
/// ```
///
/// Each call reads the settings, so it acts on the suite they name at that moment. As with
/// `UserDefaults`, a write that fails does not throw: it is kept in ``lastError`` (and a read
/// that fails reads as absent). Code that must know uses ``suite()`` and the throwing
/// ``SharedDefaults`` API, which also has the atomic `update` and `changes`.
public struct ProcessDefaults: Sendable {
    let helper: DataSharingHelper

    /// The suite the settings name now: the app group's when sharing is on, the process's own
    /// otherwise.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` when the process's context cannot be found (`untrustedProcess`)
    ///   or the suite cannot be opened (`missingEntitlement` when the group's entitlement was
    ///   removed since sharing was turned on, `storage`).
    public func suite() throws(AppexError) -> SharedDefaults { try helper.currentSuite() }

    /// What the last write that failed said (`nil` once a write succeeds): the value was not
    /// stored.
    public var lastError: AppexError? { helper.lastWriteError }

    // MARK: - Writing

    /// Stores `value` for `key` (`nil` removes it); a failure is kept in ``lastError``.
    public func set(_ value: PropertyListValue?, forKey key: String) {
        do {
            try helper.write { suite throws(AppexError) in try suite.set(value, forKey: key) }
            helper.lastWriteError = nil
        } catch {
            helper.lastWriteError = error
        }
    }

    /// Stores a Boolean.
    public func set(_ value: Bool, forKey key: String) { set(.boolean(value), forKey: key) }
    /// Stores an integer.
    public func set(_ value: Int, forKey key: String) { set(.integer(value), forKey: key) }
    /// Stores a floating-point number.
    public func set(_ value: Double, forKey key: String) { set(.real(value), forKey: key) }
    /// Stores a string.
    public func set(_ value: String, forKey key: String) { set(.string(value), forKey: key) }
    /// Stores bytes.
    public func set(_ value: Data, forKey key: String) { set(.data(value), forKey: key) }
    /// Stores a date.
    public func set(_ value: Date, forKey key: String) { set(.date(value), forKey: key) }
    /// Removes `key`.
    public func removeObject(forKey key: String) { set(nil, forKey: key) }

    // MARK: - Reading (as ``SharedDefaults``'; absent when the suite cannot be opened)

    /// The stored value of `key`, or `nil`.
    public func object(forKey key: String) -> PropertyListValue? { (try? suite())?.object(forKey: key) }
    /// The value as a Boolean: `false` when absent.
    public func bool(forKey key: String) -> Bool { (try? suite())?.bool(forKey: key) ?? false }
    /// The value as an integer: 0 when absent or not a number.
    public func integer(forKey key: String) -> Int { (try? suite())?.integer(forKey: key) ?? 0 }
    /// The value as a floating-point number: 0 when absent or not a number.
    public func double(forKey key: String) -> Double { (try? suite())?.double(forKey: key) ?? 0 }
    /// The value as a string, or `nil`.
    public func string(forKey key: String) -> String? { (try? suite())?.string(forKey: key) }
    /// The value as bytes, or `nil`.
    public func data(forKey key: String) -> Data? { (try? suite())?.data(forKey: key) }
    /// The value as a date, or `nil`.
    public func date(forKey key: String) -> Date? { (try? suite())?.date(forKey: key) }
    /// The value as an array, or `nil`.
    public func array(forKey key: String) -> [PropertyListValue]? { (try? suite())?.array(forKey: key) }
    /// The value as a dictionary, or `nil`.
    public func dictionary(forKey key: String) -> [String: PropertyListValue]? {
        (try? suite())?.dictionary(forKey: key)
    }
}
