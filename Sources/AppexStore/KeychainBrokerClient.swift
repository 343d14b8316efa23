import AppexCore
import AppexSystem
import AppexVocabulary
import Foundation
import Synchronization

/// A sandboxed extension's way to its keychain: requests to its host's broker over the packet
/// socket the launcher passed it (`APPEX_KEYCHAIN_FD`), one at a time.
final class KeychainBrokerClient: Sendable {
    /// The variable that names the broker's descriptor in a launched extension.
    static let variable = "APPEX_KEYCHAIN_FD"

    private let connection: Connection
    private let context: ProcessContext

    /// The socket, used by one request at a time, and the answers to reads, kept while the
    /// keychain's WAL index (mapped from the descriptor the host passed, `APPEX_KEYCHAIN_INDEX_FD`)
    /// says nothing was committed: a repeated read costs what a local cached read costs.
    private final class Connection: Sendable {
        let socket: Mutex<PacketSocket>
        let index: SharedIndexMapping?
        let cache = Mutex<(header: [UInt64]?, items: [KeychainQuery: [KeychainItem]])>((nil, [:]))
        init(_ socket: PacketSocket, index: SharedIndexMapping?) {
            self.socket = Mutex(socket)
            self.index = index
        }
    }

    /// The variable that names the keychain's WAL index descriptor.
    static let indexVariable = "APPEX_KEYCHAIN_INDEX_FD"

    /// The broker's socket this process inherited, adopted once (`nil` when not launched with one).
    private static let inheritedSocket: Connection? = {
        guard let value = ProcessControl.environmentVariable(variable), let fd = Int32(value), fd > 2,
            let adopted = try? ProcessControl.adoptInheritedDescriptor(fd)
        else { return nil }
        var index: SharedIndexMapping?
        if let value = ProcessControl.environmentVariable(indexVariable), let fd = Int32(value), fd > 2,
            let descriptor = try? ProcessControl.adoptInheritedDescriptor(fd)
        {
            index = SharedIndexMapping(descriptor: descriptor)
        }
        return Connection(PacketSocket(adopting: adopted), index: index)
    }()

    /// The broker this process was launched with, if any, asking as `context`.
    static func inherited(context: ProcessContext) -> KeychainBrokerClient? {
        guard let socket = inheritedSocket else { return nil }
        return KeychainBrokerClient(connection: socket, context: context)
    }

    private init(connection: Connection, context: ProcessContext) {
        self.connection = connection
        self.context = context
    }

    /// Sends `request` and waits for the broker's answer.
    ///
    /// - Throws: the broker's ``/AppexVocabulary/AppexError`` as it sent it, or `closed` when the host is gone.
    func ask(_ request: KeychainBrokerRequest) throws(AppexError) -> KeychainBrokerReply {
        let bytes = try request.encoded()
        let result = connection.socket.withLock { socket -> Result<KeychainBrokerReply, AppexError> in
            do {
                try socket.send(bytes)
                guard let message = try socket.receive() else { return .failure(Self.closed(context)) }
                return Result { () throws(AppexError) in try KeychainBrokerReply(bytes: message.bytes) }
            } catch {
                return .failure(
                    AppexError(
                        .closed,
                        "the keychain broker of \(context.name)'s host cannot be reached",
                        context: context.errorContext(),
                        underlyingError: error
                    )
                )
            }
        }
        let reply = try result.get()
        if case .failure(let code, let message) = reply {
            throw AppexError(AppexError.Code(name: code) ?? .remoteFailure, message, context: context.errorContext())
        }
        return reply
    }

    /// The items matching the query.
    func items(_ query: KeychainQuery) throws(AppexError) -> [KeychainItem] {
        // The header before asking: a commit after it makes the next read miss, never go stale.
        let header = connection.index?.header()
        if let header, let cached = connection.cache.withLock({ $0.header == header ? $0.items[query] : nil }) {
            return cached
        }
        let reply = try ask(.items(service: query.service, account: query.account, accessGroup: query.accessGroup))
        guard case .items(let wire) = reply else { throw Self.unexpected(reply, context) }
        let items = wire.map(\.item)
        if let header {
            connection.cache.withLock { cache in
                if cache.header != header { cache = (header, [:]) }
                cache.items[query] = items
            }
        }
        return items
    }

    /// A write or a delete.
    func perform(_ request: KeychainBrokerRequest) throws(AppexError) {
        let reply = try ask(request)
        guard case .done = reply else { throw Self.unexpected(reply, context) }
    }

    private static func closed(_ context: ProcessContext) -> AppexError {
        AppexError(
            .closed,
            "the keychain broker of \(context.name)'s host closed the connection",
            context: context.errorContext()
        )
    }

    private static func unexpected(_ reply: KeychainBrokerReply, _ context: ProcessContext) -> AppexError {
        AppexError(.protocolViolation, "the keychain broker answered \(reply)", context: context.errorContext())
    }
}
