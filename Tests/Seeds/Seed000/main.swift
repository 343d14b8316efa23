// `Seed000 app login|logout`: the app's startup and a user change; otherwise the extension.
import AppexSalesforce
import Foundation

if CommandLine.arguments.dropFirst().first == "app" {
    appDelegateInit()
    resetUserloginStatus()
    if let refusal = SFSDKDatasharingHelper.sharedInstance().lastRefusal {
        FileHandle.standardError.write(Data("Seed000: \(refusal)\n".utf8))
        exit(1)
    }
    print("userLoggedIn \(UserDefaults.msdkUserDefaults().bool(forKey: "userLoggedIn"))")
} else {
    await RecentContactsExtension.main()
}
