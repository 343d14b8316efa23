// swift-format-ignore-file
// Seed 000, the Salesforce Mobile SDK's "Using iOS App Extensions with Mobile SDK": its code is
// Objective-C. This is the same code as a Swift developer writes it, line for line, with the
// same names: the app's AppDelegate init and resetUserloginStatus, the extension's entry point
// and its userIsLoggedIn getter. The import is the facade's (SalesforceSDKCore became
// AppexSalesforce). What the SDK does around these lines on iOS (MobileSyncSDKManager,
// SFUserAccountManager's current user, the view controllers) is the app's own, in App.swift.
import AppexSalesforce
import Foundation

// AppDelegate's init: the app group, from the shared configuration.
func appDelegateInit() {
    let config = MobileSyncExplorerConfig.sharedInstance()
    SFSDKDatasharingHelper.sharedInstance().appGroupName = config.appGroupName
    SFSDKDatasharingHelper.sharedInstance().appGroupEnabled = config.appGroupsEnabled
}

// resetUserloginStatus, called on every change of the current user.
func resetUserloginStatus() {
    let loggedIn = SFUserAccountManager.sharedInstance().currentUser != nil
    UserDefaults.msdkUserDefaults().set(loggedIn, forKey: "userLoggedIn")
}

// The extension's entry point: the same two settings, then the login status.
func widgetPerformUpdate(completionHandler: (Bool) -> Void) {
    let config = MobileSyncExplorerConfig.sharedInstance()
    SFSDKDatasharingHelper.sharedInstance().appGroupName = config.appGroupName
    SFSDKDatasharingHelper.sharedInstance().appGroupEnabled = config.appGroupsEnabled

    completionHandler(userIsLoggedIn())
}

func userIsLoggedIn() -> Bool {
    let config = MobileSyncExplorerConfig.sharedInstance()
    return UserDefaults.msdkUserDefaults().bool(forKey: config.userLogInStatusKey)
}
