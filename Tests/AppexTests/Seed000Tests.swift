// Seed 000 — the Salesforce Mobile SDK's MobileSyncExplorer and its widget extension — with the
// seed's own lines as written. Only their imports changed: `import SalesforceSDKCore` became
// `import AppexSalesforce`. The names they use are the facade's, over AppexStore:
//   SFSDKDatasharingHelper         = DataSharingHelper (sharedInstance() is DataSharingHelper.shared)
//   UserDefaults.msdkUserDefaults() = AppexStore's extension on Foundation's UserDefaults,
//                                     returning ProcessDefaults (DataSharingHelper.shared.defaults)
import AppexCore
import AppexFixtureInterfaces
import AppexHost
import AppexSalesforce
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// Seed 000's data sharing and login status, as the seed writes them.
@Suite(.serialized, .timed) struct Seed000Tests {
    static let group = "group.com.salesforce.mobilesyncexplorer"

    @Test(
        "the app's startup lines move its defaults into the app group; its userLoggedIn reaches the widget's msdkUserDefaults"
    )
    func seedLinesAsWritten() throws {
        let world = try AppexTestEnvironment()
        func context(_ id: String, kind: AppexBundle.Kind) -> ProcessContext {
            ProcessContext(
                bundleIdentifier: id,
                team: world.team.teamIdentifier,
                entitlements: Entitlements(applicationGroups: [Self.group], keychainAccessGroups: []),
                kind: kind
            )
        }
        let app = context("com.salesforce.mobilesyncexplorer", kind: .hostApp)
        let widget = context("com.salesforce.mobilesyncexplorer.widget", kind: .appExtension)
        // What Apple's platforms know without being told: which process this is. The one line
        // a port adds, in the app and in the widget.
        let original = DataSharingHelper.shared
        defer { DataSharingHelper.shared = original }
        DataSharingHelper.shared = try DataSharingHelper(context: app, environment: world.environment)
        try DataSharing(context: app, environment: world.environment).standard.set("2026-01-01", forKey: "lastSync")

        // The app, at startup and at login (MobileSyncExplorer's AppDelegate and its login).
        SFSDKDatasharingHelper.sharedInstance().appGroupName = "group.com.salesforce.mobilesyncexplorer"
        SFSDKDatasharingHelper.sharedInstance().appGroupEnabled = true
        UserDefaults.msdkUserDefaults().set(true, forKey: "userLoggedIn")

        #expect(SFSDKDatasharingHelper.sharedInstance().lastRefusal == nil)
        #expect(UserDefaults.msdkUserDefaults().lastError == nil)
        let shared = try SharedDefaults(group: AppGroup(Self.group, context: app, environment: world.environment))
        #expect(shared.bool(forKey: "userLoggedIn"))
        #expect(shared.string(forKey: "lastSync") == "2026-01-01", "the app's own key was not moved into the group")

        // The widget, in its own process (its helper for its own context).
        DataSharingHelper.shared = try DataSharingHelper(context: widget, environment: world.environment)
        SFSDKDatasharingHelper.sharedInstance().appGroupName = "group.com.salesforce.mobilesyncexplorer"
        SFSDKDatasharingHelper.sharedInstance().appGroupEnabled = true
        let isLoggedIn = UserDefaults.msdkUserDefaults().bool(forKey: "userLoggedIn")

        #expect(isLoggedIn)
        #expect(try UserDefaults.msdkUserDefaults().suite().path == shared.path)
    }

    @Test(
        "a widget extension, launched by its host, reads the host's login Boolean under a custom key with the seed's lines and through LoginStatus"
    )
    func widgetReadsCustomKey() async throws {
        let fixture = try HostFixture()
        let key = "mseUserLoggedIn"
        try FixtureBundles.bundle(
            executable: sharedStateExecutable,
            in: fixture.hostExtensions,
            name: "Widget",
            bundleIdentifier: "com.example.hostapp.widget",
            extensionPoint: ExtensionPointIdentifier(HostFixture.point),
            entitlements: Entitlements(applicationGroups: [Self.group], keychainAccessGroups: []),
            signedBy: fixture.world.team
        )
        let process = try fixture.process(for: "com.example.hostapp.widget")
        defer { process.invalidate() }
        func widgetSays() async throws -> String {
            try await process.send(
                EchoRequest(command: "seed-widget", text: Self.group + " " + key),
                expecting: EchoReply.self
            ).text
        }
        let hostContext = ProcessContext(
            bundleIdentifier: HostFixture.hostIdentifier,
            team: fixture.world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: [Self.group], keychainAccessGroups: [])
        )
        let host = try LoginStatus(
            group: AppGroup(Self.group, context: hostContext, environment: fixture.world.environment),
            configuration: LoginStatus.Configuration(userLoggedInKey: key)
        )
        // "msdkUserDefaults LoginStatus suite", from the widget's process.
        #expect(try await widgetSays() == "false false \(Self.group)")
        try host.publish(UserAccount(identifier: "005xx", name: "Ada", instanceURL: URL(fileURLWithPath: "/")))
        #expect(try await widgetSays() == "true true \(Self.group)")
        try host.publish(nil)
        #expect(try await widgetSays() == "false false \(Self.group)")
    }
}
