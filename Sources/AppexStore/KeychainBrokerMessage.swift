import AppexCoding
public import AppexVocabulary
public import Foundation

/// (`@_spi(Fuzzing)`: the fuzz target `keychain-broker` decodes it; not supported API.)
///
/// What a sandboxed extension asks its host's keychain broker, and the answer: one message each
/// way over the broker's packet socket, in the compact coder. The broker answers with the
/// extension's own context, so its entitlements decide exactly as they would in-process.
@_spi(Fuzzing) public enum KeychainBrokerRequest: Codable, Sendable, Hashable {
    /// ``SharedKeychain/items(matching:)``.
    case items(service: String?, account: String?, accessGroup: String?)
    /// ``SharedKeychain/add(_:service:account:label:accessGroup:)``, `update` or `set`.
    case write(KeychainBrokerWrite, data: Data, service: String, account: String, label: String?, accessGroup: String?)
    /// ``SharedKeychain/delete(service:account:accessGroup:)``.
    case delete(service: String, account: String, accessGroup: String?)
}

/// Which write a ``KeychainBrokerRequest`` asks for.
@_spi(Fuzzing) public enum KeychainBrokerWrite: String, Codable, Sendable, Hashable {
    case add, update, set
}

/// The broker's answer.
@_spi(Fuzzing) public enum KeychainBrokerReply: Codable, Sendable, Hashable {
    /// The items found.
    case items([KeychainBrokerItem])
    /// The write or delete was done.
    case done
    /// It failed: the error's code (``/AppexVocabulary/AppexError/Code/description``) and message.
    case failure(code: String, message: String)
}

/// A ``KeychainItem`` on the wire.
@_spi(Fuzzing) public struct KeychainBrokerItem: Codable, Sendable, Hashable {
    var service: String
    var account: String
    var accessGroup: String
    var label: String?
    var data: Data
    var created: Double
    var modified: Double

    /// An item on the wire from its parts (the fuzz target's seeds).
    public init(
        service: String,
        account: String,
        accessGroup: String,
        label: String?,
        data: Data,
        created: Double,
        modified: Double
    ) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.label = label
        self.data = data
        self.created = created
        self.modified = modified
    }

    /// `item` on the wire.
    public init(_ item: KeychainItem) {
        service = item.service
        account = item.account
        accessGroup = item.accessGroup
        label = item.label
        data = item.data
        created = item.creationDate.timeIntervalSinceReferenceDate
        modified = item.modificationDate.timeIntervalSinceReferenceDate
    }

    var item: KeychainItem {
        KeychainItem(
            service: service,
            account: account,
            accessGroup: accessGroup,
            label: label,
            data: data,
            creationDate: Date(timeIntervalSinceReferenceDate: created),
            modificationDate: Date(timeIntervalSinceReferenceDate: modified)
        )
    }
}

extension KeychainBrokerRequest {
    /// The request the bytes hold.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `protocolViolation` for bytes that are no request.
    public init(bytes: [UInt8]) throws(AppexError) {
        do { self = try CompactDecoder().decode(KeychainBrokerRequest.self, from: bytes) } catch {
            throw AppexError(.protocolViolation, "a keychain request that does not decode: \(error)")
        }
    }

    /// The request's bytes.
    public func encoded() throws(AppexError) -> [UInt8] {
        do { return try CompactEncoder().encode(self) } catch {
            throw AppexError(.coding, "cannot encode a keychain request: \(error)")
        }
    }
}

extension KeychainBrokerReply {
    /// The reply the bytes hold.
    public init(bytes: [UInt8]) throws(AppexError) {
        do { self = try CompactDecoder().decode(KeychainBrokerReply.self, from: bytes) } catch {
            throw AppexError(.protocolViolation, "a keychain broker reply that does not decode: \(error)")
        }
    }

    /// The reply's bytes.
    public func encoded() throws(AppexError) -> [UInt8] {
        do { return try CompactEncoder().encode(self) } catch {
            throw AppexError(.coding, "cannot encode a keychain broker reply: \(error)")
        }
    }

    /// The failure that carries `error`.
    public init(failure error: AppexError) {
        self = .failure(code: error.code.description, message: error.message)
    }
}
