internal import Foundation

extension ProcessControl {
    /// The `.app` bundle this process's executable sits in, if any: whose widgets an app's
    /// reload request and Live Activities are.
    package static func containingApp() -> String? {
        var url = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        while url.path != "/" && !url.path.isEmpty {
            url.deleteLastPathComponent()
            if url.pathExtension == "app" { return url.path }
        }
        return nil
    }
}
