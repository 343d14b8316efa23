import AppexHost

struct TranslationRequest: Codable, Sendable { var text: String }
struct TranslationReply: Codable, Sendable { var text: String }

extension AppExtensionPoint {
    @Definition
    static var hostAppFeature: AppExtensionPoint {
        Name("HostAppFeature")
        UserInterface(false)
        Scope(restriction: .none)  // extensions from other vendors too, once the owner approves
    }
}

@main
struct HostApp {
    static func main() async throws {
        let monitor = try await AppExtensionPoint.Monitor(.hostAppFeature)  // @Observable
        print(monitor.state.unapprovedCount)  // found on APPEX_EXTENSIONS_PATH, waiting for the owner
        guard let translator = monitor.identities.first else { return }  // enabled, valid, signed
        let process = try await AppExtensionProcess(configuration: .init(appExtensionIdentity: translator))
        let reply = try await process.makeSession().send(TranslationRequest(text: "hello"), expecting: TranslationReply.self)
        print(reply.text)
    }
}