public import AppexStore
public import Foundation

extension UserDefaults {
    /// The Salesforce Mobile SDK's accessor for the process's defaults — the app group's suite
    /// when data sharing is on, the process's own otherwise — so that
    /// `UserDefaults.msdkUserDefaults().set(true, forKey: "userLoggedIn")` compiles as written.
    ///
    /// It returns `ProcessDefaults` (Appex's defaults, in its stores), not a `UserDefaults`:
    /// `DataSharingHelper.shared.defaults`.
    public static func msdkUserDefaults() -> ProcessDefaults { DataSharingHelper.shared.defaults }
}
