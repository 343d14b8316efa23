// The app's own pieces around seed 002's listings: its configuration, its flow provider and
// widget data service (whose members the listings are), the welcome step, and the widget.
import AppexAuth
import AppexAuthLogin
import AppexExtension
import AppexSAP
import AppexStore
import Foundation

/// What the app and its widget share (the document's `AuxiliaryConfiguration`).
enum AuxiliaryConfiguration {
    static let host = "com.example.sapapp"
    static let group = "group.com.example.sap"
    static let sharedStoreName = "SecureStore"
    static let sharedAccessGroup = "TEAMID.com.example.sap.shared"
    static let onboardingStatusName = "onboarded"
    static let widgetKind = "balance"

    /// The app group's data-request store, sealed with the key the app published (before the
    /// app is onboarded there is none: the store can then only be looked after).
    static func getSharedStore() throws -> AuxiliaryDataStore {
        let appGroup = try AppGroup(group, context: ProcessContext.current())
        let security = try AuxiliarySecurityManager(
            hostBundleIdentifier: host,
            storeName: sharedStoreName,
            accessGroup: sharedAccessGroup
        )
        guard let key = try? security.getAuxiliaryDataEncryptionKey() else {
            return try AuxiliaryDataStore(lookingAfter: appGroup)
        }
        return try AuxiliaryDataStore(group: appGroup, encryptionKey: key)
    }
}

/// What the widget asks for.
struct WidgetDataKey: Codable, Hashable, Sendable {
    var account: String
}

typealias YourAuxiliaryDataKey = WidgetDataKey

/// The app's flows (SAPFioriFlows' flow provider).
final class OnboardingFlowProvider: Sendable {
    /// The first start: the store with its passcode, and its shares for the widget.
    var onboardingSteps: [any OnboardingStep] {
        let step = StoreManagerStep()
        step.auxiliaryParameters = getAuxiliaryParameters()
        return [step]
    }

    /// The app's API key.
    func getAPIKeyAuthenticationConfig() -> APIKeyAuthenticationConfig? {
        APIKeyAuthenticationConfig(apiKeys: ["seed002-key"], isAPIKeyAccessOnly: false, allowAnonymousAccessFlag: false)
    }

    /// SAP's welcome screen; on Linux the terminal greets at the first start.
    func configuredWelcomeScreenStep() -> any OnboardingStep { WelcomeStep() }
}

/// The welcome: a line on standard error at the first start, nothing in the background.
struct WelcomeStep: OnboardingStep {
    func onboard(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        FileHandle.standardError.write(Data("Welcome to the SAP demo app\n".utf8))
        completionHandler(.success(context))
    }
}

/// The widget's side: its data requests.
final class WidgetDataService: Sendable {
    let dataRequestManager: AppexSAP.AuxiliaryDataRequestManager

    init() throws {
        dataRequestManager = try AppexSAP.AuxiliaryDataRequestManager(
            dataStore: AuxiliaryConfiguration.getSharedStore()
        )
    }

    /// The auxiliary share the app published.
    func fetchESPAKAuxiliary() throws -> Data {
        try AuxiliarySecurityManager(
            hostBundleIdentifier: AuxiliaryConfiguration.host,
            storeName: AuxiliaryConfiguration.sharedStoreName,
            accessGroup: AuxiliaryConfiguration.sharedAccessGroup
        ).getESPAKAuxiliary()
    }
}

extension AuxiliaryCommunicationStep {
    /// Answers the widget's requests: the account's balance, read from the store opened with
    /// the request's share.
    func loadDataForWidget(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        context.answerDataRequests(
            inGroup: AuxiliaryConfiguration.group,
            handlers: [
                AuxiliaryConfiguration.widgetKind: { claim, store throws(AppexError) -> Data in
                    let key = try claim.info(as: WidgetDataKey.self)
                    let balance: String? = try store.get("balance:\(key.account)")
                    return Data((balance ?? "no balance").utf8)
                }
            ],
            completionHandler: completionHandler
        )
    }
}

/// The widget: asks the app for an account's balance and waits for the answer.
struct BalanceWidgetExtension: AppExtension {
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier(AuxiliaryConfiguration.host, name: "SAPWidget")
    }

    var configuration: some AppExtensionConfiguration {
        ConnectionHandler { (account: String) async -> String in
            do {
                let service = try WidgetDataService()
                try service.initiateDataRequest(requestInfo: WidgetDataKey(account: account))
                guard
                    let request: DefaultAuxiliaryDataRequest<WidgetDataKey> = try service.dataRequestManager
                        .getDataRequest()
                else { return "no request" }
                let answered = try await service.dataRequestManager.completion(of: request, within: .seconds(30))
                let onboarded = try OnboardingStatus.isOnboarded(
                    name: AuxiliaryConfiguration.onboardingStatusName,
                    accessGroup: AuxiliaryConfiguration.sharedAccessGroup,
                    context: ProcessContext.current()
                )
                return String(decoding: answered.response ?? Data(), as: UTF8.self) + " onboarded=\(onboarded)"
            } catch {
                return "error \(error)"
            }
        }
    }
}

/// The app's session with the server the test names.
func sessionConfiguration(_ issuer: String) -> OAuthConfiguration {
    OAuthConfiguration(
        issuer: URL(string: issuer) ?? URL(fileURLWithPath: "/"),
        clientID: "swift-public",
        scopes: ["read", "write"],
        appGroup: AuxiliaryConfiguration.group,
        keychainAccessGroup: AuxiliaryConfiguration.sharedAccessGroup
    )
}
