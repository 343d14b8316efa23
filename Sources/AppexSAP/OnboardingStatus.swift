public import AppexCore
public import AppexStore
import Foundation

/// Whether the app is onboarded, as its ``StoreManagerStep`` publishes it for its extensions: a
/// shared keychain item named by ``AuxiliaryParameters/onboardingStatusName``.
public enum OnboardingStatus {
    /// The keychain service the status is kept under.
    public static let service = "appex.sap.onboarding"

    /// Publishes `onboarded` under `name` in `accessGroup`.
    ///
    /// - Throws: `AppexError` from the keychain (`missingEntitlement` names the group).
    public static func publish(
        _ onboarded: Bool,
        name: String,
        accessGroup: String,
        context: ProcessContext,
        environment: AppexEnvironment = .current()
    ) throws(AppexError) {
        try SharedKeychain(context: context, environment: environment)
            .set(Data((onboarded ? "true" : "false").utf8), service: service, account: name, accessGroup: accessGroup)
    }

    /// Whether the app published that it is onboarded (`false` when it published nothing).
    ///
    /// - Throws: `AppexError` from the keychain (`missingEntitlement` names the group).
    public static func isOnboarded(
        name: String,
        accessGroup: String,
        context: ProcessContext,
        environment: AppexEnvironment = .current()
    ) throws(AppexError) -> Bool {
        let item = try SharedKeychain(context: context, environment: environment)
            .item(service: service, account: name, accessGroup: accessGroup)
        return item.map { String(decoding: $0.data, as: UTF8.self) == "true" } ?? false
    }
}
