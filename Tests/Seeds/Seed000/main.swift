// `Seed000 app login|logout`: the app's startup and a user change; `Seed000 app ask`: the app
// launches its extension as ExtensionKit's hosts do and asks it; otherwise the extension.
import AppexHost
import AppexSalesforce
import Foundation

if CommandLine.arguments.dropFirst().first == "app", CommandLine.arguments.dropFirst(2).first == "ask" {
    await askExtension()
} else if CommandLine.arguments.dropFirst().first == "app" {
    appDelegateInit()
    resetUserloginStatus()
    if let refusal = SFSDKDatasharingHelper.sharedInstance().lastRefusal {
        FileHandle.standardError.write(Data("Seed000: \(refusal)\n".utf8))
        exit(1)
    }
    print("userLoggedIn \(UserDefaults.msdkUserDefaults().bool(forKey: "userLoggedIn"))")
} else {
    RecentContactsExtension.main()
}
