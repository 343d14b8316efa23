import AppexCore
@_spi(Fuzzing) import AppexStore
import AppexSystem
import AppexVocabulary
import Logging

/// The host's side of a sandboxed extension's keychain: it answers the requests that arrive on
/// the extension's broker socket, each only after the kernel attested that the process it
/// launched sent it (another holder of the descriptor is refused and logged), with a keychain
/// opened for that extension's context (its bundle identifier, its team and its signed
/// entitlements, all checked at launch), so an access group it is not entitled to is refused
/// exactly as it would be in-process. Widgets are served the same way by the widget host, as
/// Apple's system keychain service serves every app.
struct KeychainBroker: Sendable {
    let socket: PacketSocket
    let pid: Int32
    let context: ProcessContext
    let environment: AppexEnvironment
    let logger: Logger
    /// Where a request refused for what the extension is not entitled to is counted.
    let counters: ExtensionCounters

    /// Serves until the extension's end closes (it ended), holding no thread while it waits.
    func start() {
        let broker = self
        Task.detached { await broker.serve() }
    }

    private func serve() async {
        var keychain: SharedKeychain?
        while true {
            _ = await EventThread.shared.readable(socket.descriptor.rawValue, within: .seconds(3600))
            let message: PacketSocket.Message?
            do { message = try socket.receive(waiting: false) } catch {
                if error.errno == .resourceTemporarilyUnavailable || error.errno == .interrupted { continue }
                return
            }
            guard let message else { return }  // every holder of the extension's end closed it
            let reply: KeychainBrokerReply
            do throws(AppexError) {
                try check(message)
                let request = try KeychainBrokerRequest(bytes: message.bytes)
                if keychain == nil { keychain = try SharedKeychain(servingFor: context, environment: environment) }
                guard let keychain else { continue }
                reply = try Self.answer(request, with: keychain)
            } catch {
                if Self.refusalCodes.contains(error.code) { counters.refused() }
                reply = KeychainBrokerReply(failure: error)
            }
            guard let bytes = try? reply.encoded(), (try? socket.send(bytes)) != nil else { return }
        }
    }

    /// The answers that refuse what the extension's entitlements (or its process) do not grant:
    /// counted as the sandbox's refusals.
    static let refusalCodes: Set<AppexError.Code> = [.missingEntitlement, .teamMismatch, .untrustedProcess, .hostOnly]

    /// The request must come from the process the host launched, as its user, whole.
    private func check(_ message: PacketSocket.Message) throws(AppexError) {
        let name = context.bundleIdentifier ?? "?"
        guard let sender = message.sender else {
            throw AppexError(
                .untrustedProcess,
                "a keychain request for \(name) came without the kernel's word on its sender",
                context: AppexError.Context(bundleIdentifier: name)
            )
        }
        guard sender.processIdentifier == pid, sender.userIdentifier == ProcessControl.userIdentifier else {
            logger.warning(
                "refused a keychain request on \(name)'s broker from \(sender): not the process the host launched (pid \(pid))",
                metadata: ["extension": "\(name)", "pid": "\(pid)"]
            )
            throw AppexError(
                .untrustedProcess,
                "the keychain broker of \(name) answers only the process its host launched (pid \(pid)); this request came from \(sender)",
                context: AppexError.Context(bundleIdentifier: name, peer: sender.processIdentifier)
            )
        }
        if message.truncated {
            throw AppexError(
                .frameTooLarge,
                "a keychain request from \(name) is larger than \(PacketSocket.messageLimit) bytes",
                context: AppexError.Context(bundleIdentifier: name, peer: pid)
            )
        }
    }

    private static func answer(
        _ request: KeychainBrokerRequest,
        with keychain: SharedKeychain
    ) throws(AppexError) -> KeychainBrokerReply {
        switch request {
        case .items(let service, let account, let group):
            let items = try keychain.items(
                matching: KeychainQuery(service: service, account: account, accessGroup: group)
            )
            return .items(items.map(KeychainBrokerItem.init))
        case .write(let kind, let data, let service, let account, let label, let group):
            try keychain.write(kind, data, service: service, account: account, label: label, accessGroup: group)
            return .done
        case .delete(let service, let account, let group):
            try keychain.delete(service: service, account: account, accessGroup: group)
            return .done
        }
    }
}
