import Foundation

/// What a bundle may touch, read from its `Entitlements.plist` in Apple's format.
public struct Entitlements: Sendable, Hashable {
    /// `com.apple.security.application-groups`: the app groups the bundle may open.
    public var applicationGroups: [String]
    /// `keychain-access-groups`: the keychain access groups the bundle may use.
    public var keychainAccessGroups: [String]
    /// Every key of the file, as read.
    public var values: [String: PropertyListValue]
    /// Everything wrong with the file; empty when it is valid.
    public var problems: [BundleProblem]

    /// The entitlement keys Appex acts on.
    public enum Key {
        /// `com.apple.security.application-groups` (an array): the app groups the bundle may use.
        public static let applicationGroups = "com.apple.security.application-groups"
        /// `keychain-access-groups` (an array): the keychain groups the bundle may use; the first
        /// is its default group.
        public static let keychainAccessGroups = "keychain-access-groups"
        /// `com.apple.security.network.client` (a boolean): the sandbox lets the bundle connect out.
        public static let networkClient = "com.apple.security.network.client"
        /// `com.apple.security.network.server` (a boolean): the sandbox lets the bundle listen.
        public static let networkServer = "com.apple.security.network.server"
    }

    /// No entitlements at all: what a bundle without an `Entitlements.plist` has.
    public static let none = Entitlements(applicationGroups: [], keychainAccessGroups: [], values: [:], problems: [])

    /// Makes entitlements from their parts.
    public init(
        applicationGroups: [String],
        keychainAccessGroups: [String],
        values: [String: PropertyListValue] = [:],
        problems: [BundleProblem] = []
    ) {
        self.applicationGroups = applicationGroups
        self.keychainAccessGroups = keychainAccessGroups
        self.values = values
        self.problems = problems
    }

    /// Reads an entitlements plist (XML or binary); problems name `file` and the key.
    public init(data: [UInt8], file: String) {
        self = .none
        let dictionary: [String: PropertyListValue]
        do {
            dictionary = try PropertyListValue.readDictionary(from: data)
        } catch {
            problems = [BundleProblem(.malformedPropertyList, file: file, message: error.reason)]
            return
        }
        values = dictionary
        var reader = KeyReader(dictionary: dictionary, file: file)
        applicationGroups = reader.stringArray(Key.applicationGroups)
        keychainAccessGroups = reader.stringArray(Key.keychainAccessGroups)
        problems = reader.problems + BuildSettings.problems(in: dictionary, file: file)
    }

    /// The property list these entitlements write (the two keys Appex acts on, plus any others read).
    public var propertyList: [String: PropertyListValue] {
        var dictionary = values
        dictionary[Key.applicationGroups] =
            applicationGroups.isEmpty ? nil : .array(applicationGroups.map(PropertyListValue.string))
        dictionary[Key.keychainAccessGroups] =
            keychainAccessGroups.isEmpty ? nil : .array(keychainAccessGroups.map(PropertyListValue.string))
        return dictionary
    }
}
