// The app's own pieces around seed 000's lines: MobileSyncExplorerConfig (the sample's shared
// module), the current user (the SDK's login, which an extension never runs), and one program
// that is the app (`Seed000 app login|logout`, run from inside its .app) or its extension.
import AppexExtension
import AppexHost
import AppexSalesforce
import Foundation

/// MobileSyncExplorer's shared configuration.
final class MobileSyncExplorerConfig: Sendable {
    static func sharedInstance() -> MobileSyncExplorerConfig { MobileSyncExplorerConfig() }
    let appGroupName = "group.com.salesforce.mobilesyncexplorer"
    let appGroupsEnabled = true
    let userLogInStatusKey = "userLoggedIn"
}

/// Who is logged in, as the SDK's account manager would say (the app's `login` argument).
final class SFUserAccountManager: Sendable {
    static func sharedInstance() -> SFUserAccountManager { SFUserAccountManager() }
    var currentUser: String? { CommandLine.arguments.dropFirst(2).first == "login" ? "ada" : nil }
}

/// The extension: answers "is the user logged in?" from `widgetPerformUpdate`.
struct RecentContactsExtension: AppExtension {
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier("com.salesforce.mobilesyncexplorer", name: "RecentContacts")
    }

    var configuration: some AppExtensionConfiguration {
        ConnectionHandler { (_: String) in
            var loggedIn = false
            widgetPerformUpdate { loggedIn = $0 }
            return loggedIn
        }
    }
}

/// The app's side: finds its extension with a monitor and launches it with ExtensionKit's
/// configuration (no host path: the app is the one running), then prints its answer.
func askExtension() async {
    do {
        let point = AppExtensionPoint(
            identifier: ExtensionPointIdentifier(host: "com.salesforce.mobilesyncexplorer", name: "RecentContacts")
        )
        let monitor = try await AppExtensionPoint.Monitor(appExtensionPoint: point)
        guard let identity = monitor.identities.first else {
            throw AppexError(.notFound, "no extension of \(point.identifier)")
        }
        let process = try await AppExtensionProcess(
            configuration: AppExtensionProcess.Configuration(appExtensionIdentity: identity, onInterruption: {})
        )
        defer { process.invalidate() }
        print("extension says userLoggedIn \(try await process.send("userLoggedIn?", expecting: Bool.self))")
    } catch {
        FileHandle.standardError.write(Data("Seed000: \(error)\n".utf8))
        exit(1)
    }
}
