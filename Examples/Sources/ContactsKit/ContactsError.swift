/// Why a contacts operation failed, saying what and where (the URL, the store's path, the
/// contact).
public struct ContactsError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure.
    public enum Kind: String, Sendable {
        /// The server answered something other than what was asked (status, body).
        case server
        /// The store could not be read or written.
        case storage
        /// No such contact (or extension, or widget).
        case notFound
        /// The app is not set up as it must run: outside its bundle, or no usable server named.
        case configuration
    }

    /// What kind of failure.
    public let kind: Kind
    /// What was wrong and where.
    public let message: String

    /// An error of `kind`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
