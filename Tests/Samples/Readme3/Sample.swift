import AppexExtension

struct TranslationRequest: Codable, Sendable { var text: String }
struct TranslationReply: Codable, Sendable { var text: String }

@main
struct TranslateExtension: AppExtension {
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature")
    }

    var configuration: ConnectionHandler {
        ConnectionHandler { request in
            let handler = TranslationHandler()
            return request.accept { session in
                return handler
            }
        }
    }
}

struct TranslationHandler: XPCPeerHandler {
    func handleIncomingRequest(_ message: TranslationRequest) -> (any Encodable)? {
        TranslationReply(text: String(message.text.reversed()))  // a real translator goes here
    }
}