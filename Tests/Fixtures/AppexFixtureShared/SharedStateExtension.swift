// A fixture extension that uses what the host shares: its login status and its OAuth session.
// Kept apart from the echo fixture, which links AppexExtension alone, as an extension that uses
// no store does: this one links AppexStore and AppexAuth (swift-crypto, GRDB) because it uses them.
import AppexAuth
import AppexExtension
import AppexFixtureInterfaces
import AppexStore
import Foundation

@main
struct SharedStateExtension: AppExtension {
    static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")

    var configuration: some AppExtensionConfiguration {
        ConnectionHandler { (request: EchoRequest) -> EchoReply in
            let pid = ProcessInfo.processInfo.processIdentifier
            switch request.command {
            case "login":
                // Who is logged in to the host, through the app group named by the text; refuses
                // with not-logged-in before login.
                let status = try LoginStatus(group: AppGroup(request.text, context: try ProcessContext.current()))
                return EchoReply(text: try status.requireUser().name, pid: pid)
            case "token":
                // A fresh access token from the host's session (the configuration file named by
                // the text), as an extension gets one; refused with not-logged-in before login.
                let configuration = try OAuthConfiguration.load(from: request.text)
                let manager = try AccessorBuilder(configuration: configuration, context: try ProcessContext.current())
                    .option(.oauth).build().tokenManager
                let token = try await manager.withFreshAccessToken { $0 }
                return EchoReply(text: "token of \(token.count) characters", pid: pid)
            case "publish-login":
                // Tries to log a user in from the extension: refused with host-only.
                let status = try LoginStatus(group: AppGroup(request.text, context: try ProcessContext.current()))
                try status.publish(
                    UserAccount(identifier: "intruder", name: "Mallory", instanceURL: URL(fileURLWithPath: "/"))
                )
                return EchoReply(text: "published", pid: pid)
            default:
                return EchoReply(text: request.text, pid: pid)
            }
        }
    }

    init() {}
}
