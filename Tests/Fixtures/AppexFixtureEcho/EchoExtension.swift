import AppexCore
import AppexAuth
import AppexExtension
import AppexFixtureInterfaces
import AppexIPC
import AppexStore
import Distributed
import Foundation

/// A fixture extension: echoes, and on request crashes, hangs or prints without end.
@main
struct EchoExtension: AppExtension {
    static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")

    var configuration: some AppExtensionConfiguration {
        ConnectionHandler { (request: EchoRequest) -> EchoReply in
            switch request.command {
            case "crash":
                kill(getpid(), SIGKILL)
            case "hang":
                try await Task.sleep(for: .seconds(3600))
            case "print":
                for index in 0..<10_000 { print("stray output \(index) that must not reach the channel") }
            case "fail":
                throw EchoFailure(text: request.text)
            case "login":
                // Who is logged in to the host, through the app group named by the text; refuses
                // with not-logged-in before login.
                let status = try LoginStatus(group: AppGroup(request.text, context: try ProcessContext.current()))
                return EchoReply(text: try status.requireUser().name, pid: getpid())
            case "token":
                // A fresh access token from the host's session (the configuration file named by
                // the text), as an extension gets one; refused with not-logged-in before login.
                let configuration = try OAuthConfiguration.load(from: request.text)
                let manager = try AccessorBuilder(configuration: configuration, context: try ProcessContext.current()).option(.oauth).build().tokenManager
                let token = try await manager.withFreshAccessToken { $0 }
                return EchoReply(text: "token of \(token.count) characters", pid: getpid())
            case "publish-login":
                // Tries to log a user in from the extension: refused with host-only.
                let status = try LoginStatus(group: AppGroup(request.text, context: try ProcessContext.current()))
                try status.publish(UserAccount(identifier: "intruder", name: "Mallory", instanceURL: URL(fileURLWithPath: "/")))
                return EchoReply(text: "published", pid: getpid())
            case "callback":
                // Ask the host, and answer with what it said.
                let answer = try await AppExtensionContext.callHost(HostQuestion(text: request.text), expecting: HostAnswer.self)
                return EchoReply(text: answer.text, pid: getpid())
            case "garbage":
                // Bytes that are no frame at all, straight onto the connection.
                var bytes = [UInt8](repeating: 0xEE, count: 64)
                _ = write(3, &bytes, bytes.count)
                try await Task.sleep(for: .seconds(3600))
            case "oversize":
                // A well-formed header announcing a 1 GiB reply.
                var header: [UInt8] = [0, 0, 0, 0x40, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
                _ = write(3, &header, header.count)
                try await Task.sleep(for: .seconds(3600))
            default:
                break
            }
            return EchoReply(text: request.text, pid: getpid())
        }
    }

    init() {
        // The exported interface: callable from the host as a distributed actor.
        AppExtensionContext.actorSystem.export(UppercaseTranslator(actorSystem: AppExtensionContext.actorSystem), as: "translator")
    }
}

/// Upper-cases; the texts `crash` and `fail` do what the session commands of those names do,
/// so a test can provoke one failure through both paths.
distributed actor UppercaseTranslator: FixtureTranslator {
    typealias ActorSystem = IPCActorSystem
    distributed func translate(_ text: String) throws -> TranslatedText {
        switch text {
        case "crash": kill(getpid(), SIGKILL)
        case "fail": throw EchoFailure(text: text)
        default: break
        }
        return TranslatedText(text: text.uppercased(), pid: getpid())
    }
}

struct EchoFailure: Error, CustomStringConvertible {
    var text: String
    var description: String { "echo refused: \(text)" }
}

struct HostQuestion: Codable, Sendable {
    var text: String
}

struct HostAnswer: Codable, Sendable {
    var text: String
}
