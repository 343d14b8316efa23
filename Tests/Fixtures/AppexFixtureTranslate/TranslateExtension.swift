// The seed's translate extension, in both of ExtensionKit's configuration styles.
//
// Which style serves is read from the file `style` in the extension's data directory (the
// tests write it):
// - `connection` — `accept(connection:)` with an exported distributed actor;
// - `xpc-connection` — seed 001's `accept(connection:)`, with its exportedInterface;
// - `late-resume` / `never-resume` — resume() half a second after accepting, or never;
// - `wrong-interface` — an exported object that does not serve its exportedInterface;
// - `connection-and-session` — both: the exported actor and `answerRequests(with:)`;
// - `decline` — refuse the host;
// - `both-handlers` — set requestHandler and payloadHandler (a mistake the runtime must name);
// - `peer-handler` — a session with Appex's `PeerHandler`;
// - anything else — seed 001's XPC-style session, verbatim.
import AppexExtension
import AppexFixtureInterfaces
import AppexIPC
import Distributed
import Foundation

@main
struct TranslateExtension: AppExtension {
    // Seed 001's binding, verbatim.
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature")
    }

    var configuration: ConnectionHandler {
        switch Self.style {
        case "connection":
            ConnectionHandler(onConnection: { connection in
                connection.exportedObject = Translator(actorSystem: connection.actorSystem)
                connection.resume()
                return true
            })
        case "xpc-connection":
            ConnectionHandler(onConnection: { connection in
                SeedTranslateConfiguration().accept(connection: connection)
            })
        case "late-resume":
            // Ready only half a second after accepting: nothing may be delivered before resume().
            ConnectionHandler(onConnection: { connection in
                connection.exportedObject = Translator(actorSystem: connection.actorSystem)
                Task {
                    try? await Task.sleep(for: .milliseconds(500))
                    connection.resume()
                }
                return true
            })
        case "never-resume":
            ConnectionHandler(onConnection: { connection in
                connection.exportedObject = Translator(actorSystem: connection.actorSystem)
                return true
            })
        case "wrong-interface":
            ConnectionHandler(onConnection: { connection in
                connection.exportedInterface = NSXPCInterface(with: (any UnrelatedService).self)
                connection.exportedObject = Translator(actorSystem: connection.actorSystem)
                connection.resume()
                return true
            })
        case "connection-and-session":
            ConnectionHandler(onConnection: { connection in
                connection.exportedObject = Translator(actorSystem: connection.actorSystem)
                connection.answerRequests(with: TranslationHandler())
                connection.resume()
                return true
            })
        case "both-handlers":
            ConnectionHandler(onConnection: { connection in
                connection.requestHandler = { bytes in bytes }
                connection.payloadHandler = { payload in payload }
                connection.resume()
                return true
            })
        case "decline":
            ConnectionHandler(onSessionRequest: { request in
                request.reject(reason: "translations for \(request.hostBundleIdentifier) are switched off")
            })
        case "peer-handler":
            ConnectionHandler(onSessionRequest: { request in
                request.accept { session in
                    TranslationHandler()
                }
            })
        default:
            // Seed 001's translate example, verbatim: the unlabelled handler and XPC's handler.
            ConnectionHandler { request in
                let handler = XPCTranslationHandler()
                return request.accept { session in
                    return handler
                }
            }
        }
    }

    static var style: String {
        let directory = ProcessInfo.processInfo.environment["APPEX_DATA_DIRECTORY"] ?? "."
        let text = (try? String(contentsOfFile: directory + "/style", encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    init() {}
}

struct TranslationHandler: PeerHandler {
    func handleIncomingRequest(_ message: TranslationRequest) -> TranslationReply? {
        TranslationReply(text: message.text.uppercased())
    }
}

/// Seed 001's NSXPCConnection style, as ExtensionKit's documentation writes it (aliases:
/// `NSXPCConnection` is Appex's `HostConnection`, `NSXPCInterface` its `ExportedInterface`; the
/// exported object is a distributed actor, made on the connection's actor system).
struct SeedTranslateConfiguration: AppExtensionConfiguration {
    func accept(connection: NSXPCConnection) -> Bool {
        connection.exportedInterface = NSXPCInterface(with: (any FixtureTranslator).self)
        connection.exportedObject = Translator(actorSystem: connection.actorSystem)
        connection.resume()
        return true
    }
}

/// Seed 001's handler, written against XPC's protocol.
struct XPCTranslationHandler: XPCPeerHandler {
    func handleIncomingRequest(_ message: TranslationRequest) -> (any Encodable)? {
        TranslationReply(text: message.text.uppercased())
    }
}

/// A protocol the translator does not serve (the `wrong-interface` style names it).
protocol UnrelatedService: DistributedActor {}

distributed actor Translator: FixtureTranslator {
    typealias ActorSystem = IPCActorSystem
    distributed func translate(_ text: String) -> TranslatedText {
        TranslatedText(text: text.uppercased(), pid: getpid())
    }
}
