import AppexWidgetKit
import Foundation

/// A containing app for the fixture widgets. `reload KIND` (or `reload` for all) asks the
/// widget host for new timelines with `WidgetCenter`, as an app does after its data changed.
/// Opened with a URL (a widget tapped), it writes the URL to `$APPEX_HOME/opened-url`.
@main
struct FixtureWidgetApp {
    static func main() throws {
        if try onOpenURL(perform: { url in
            let home = ProcessInfo.processInfo.environment["APPEX_HOME"] ?? "/tmp"
            try url.absoluteString.write(toFile: home + "/opened-url", atomically: true, encoding: .utf8)
        }) {
            return
        }
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.first == "reload" else {
            print("usage: FixtureWidgetApp reload [KIND]")
            return
        }
        if let kind = arguments.dropFirst().first {
            try WidgetCenter.shared.requestReload(ofKind: kind)
        } else {
            WidgetCenter.shared.reloadAllTimelines()
        }
    }
}
