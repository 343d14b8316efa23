// A fixture extension that uses what the host shares: its login status and its OAuth session.
// Kept apart from the echo fixture, which links AppexExtension alone, as an extension that uses
// no store does: this one links AppexStore and AppexAuth (swift-crypto, GRDB) because it uses them.
import AppexAuth
import AppexExtension
import AppexFixtureInterfaces
import AppexSalesforce
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
            case "seed-widget":
                // Seed 000's widget: shares its defaults through the group (the text's first
                // word) with the SDK's words, then reads the login Boolean under the key (the
                // second word) through msdkUserDefaults and through LoginStatus. The shared
                // helper finds this process's context itself (its bundle, APPEX_BUNDLE_PATH).
                let words = request.text.split(separator: " ").map(String.init)
                guard words.count == 2 else { return EchoReply(text: "usage: GROUP KEY", pid: pid) }
                SFSDKDatasharingHelper.sharedInstance().appGroupName = words[0]
                SFSDKDatasharingHelper.sharedInstance().appGroupEnabled = true
                if let refusal = SFSDKDatasharingHelper.sharedInstance().lastRefusal { throw refusal }
                let viaDefaults = UserDefaults.msdkUserDefaults().bool(forKey: words[1])
                let status = try LoginStatus(
                    group: AppGroup(words[0], context: try ProcessContext.current()),
                    configuration: LoginStatus.Configuration(userLoggedInKey: words[1])
                )
                let suite = try UserDefaults.msdkUserDefaults().suite().group?.identifier ?? "own"
                return EchoReply(text: "\(viaDefaults) \(status.isUserLoggedIn) \(suite)", pid: pid)
            default:
                return EchoReply(text: request.text, pid: pid)
            }
        }
    }

    init() {}
}
