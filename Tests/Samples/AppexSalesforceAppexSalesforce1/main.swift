import AppexSalesforce
import Foundation

// Which process this is: an extension's comes from its bundle (APPEX_BUNDLE_PATH) by itself; a
// host app launched otherwise names its bundle once, before the seed's code runs.
DataSharingHelper.shared = try DataSharingHelper(
    context: ProcessContext(bundleAt: "/opt/Applications/MobileSyncExplorer.app")
)

// The seed's app at startup, and at login, as written:
SFSDKDatasharingHelper.sharedInstance().appGroupName = "group.com.salesforce.mobilesyncexplorer"
SFSDKDatasharingHelper.sharedInstance().appGroupEnabled = true
UserDefaults.msdkUserDefaults().set(true, forKey: "userLoggedIn")
if let refusal = SFSDKDatasharingHelper.sharedInstance().lastRefusal { print(refusal) }  // missing-entitlement names the group and the bundle

// The seed's widget: the same two settings, then
print(UserDefaults.msdkUserDefaults().bool(forKey: "userLoggedIn"))

// In Swift's words: a set that throws, the suite the settings name, the login status under a key.
try DataSharingHelper.shared.setAppGroup("group.com.salesforce.mobilesyncexplorer", enabled: true)
let suite = try DataSharingHelper.shared.defaults.suite()  // SharedDefaults: update, changes, value(forKey:)
let status = try LoginStatus(
    group: AppGroup("group.com.salesforce.mobilesyncexplorer", context: ProcessContext.current()),
    configuration: LoginStatus.Configuration(userLoggedInKey: "userLoggedIn")
)
print(suite.path, status.isUserLoggedIn)