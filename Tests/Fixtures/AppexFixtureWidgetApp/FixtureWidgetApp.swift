import AppexWidgetKit
import Foundation

/// A containing app for the fixture widgets. `reload KIND` (or `reload` for all) asks the
/// widget host for new timelines with `WidgetCenter`, as an app does after its data changed.
/// `activity start ORDER MINUTES [STALE_SECONDS]` starts a delivery's Live Activity (printing its
/// identifier; its content goes stale after STALE_SECONDS),
/// `activity update ID MINUTES` and `activity end ID [immediate]` change and end it.
/// Opened with a URL (a widget tapped), it writes the URL to `$APPEX_HOME/opened-url`.
@main
struct FixtureWidgetApp {
    static func main() async throws {
        if try onOpenURL(perform: { url in
            let home = ProcessInfo.processInfo.environment["APPEX_HOME"] ?? "/tmp"
            try url.absoluteString.write(toFile: home + "/opened-url", atomically: true, encoding: .utf8)
        }) {
            return
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "reload":
            if let kind = arguments.dropFirst().first {
                try WidgetCenter.shared.requestReload(ofKind: kind)
            } else {
                WidgetCenter.shared.reloadAllTimelines()
            }
        case "activity":
            try await activity(Array(arguments.dropFirst()))
        default:
            print("usage: FixtureWidgetApp reload [KIND] | activity start|update|end …")
        }
    }

    static func activity(_ arguments: [String]) async throws {
        func content(
            _ minutes: String,
            staleAfter seconds: String? = nil
        ) -> ActivityContent<DeliveryAttributes.ContentState> {
            ActivityContent(
                state: DeliveryAttributes.ContentState(minutesLeft: Int(minutes) ?? 0),
                staleDate: seconds.flatMap(Double.init).map { Date().addingTimeInterval($0) }
            )
        }
        func running(_ id: String) throws -> Activity<DeliveryAttributes> {
            guard let found = Activity<DeliveryAttributes>.activities.first(where: { $0.id == id }) else {
                throw AppexError(.notFound, "no running delivery \(id)")
            }
            return found
        }
        switch (arguments.first, arguments.count) {
        case ("start", 3), ("start", 4):
            let activity = try Activity.request(
                attributes: DeliveryAttributes(orderNumber: arguments[1]),
                content: content(arguments[2], staleAfter: arguments.count == 4 ? arguments[3] : nil)
            )
            print(activity.id)
        case ("update", 3):
            try await running(arguments[1]).update(content(arguments[2]))
        case ("end", 2), ("end", 3):
            let policy: ActivityUIDismissalPolicy = arguments.count == 3 ? .immediate : .default
            try await running(arguments[1]).end(nil, dismissalPolicy: policy)
        default:
            print(
                "usage: FixtureWidgetApp activity start ORDER MINUTES [STALE_SECONDS] | update ID MINUTES | end ID [immediate]"
            )
        }
    }
}

/// The attributes the app and its widget extension share (each compiles this declaration).
struct DeliveryAttributes: ActivityAttributes {
    struct ContentState: Codable & Hashable {
        var minutesLeft: Int
    }

    let orderNumber: String
}
