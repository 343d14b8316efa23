/// How an activity's updates arrive, as ActivityKit's `PushType`. Linux has no push service:
/// ``Activity/request(attributes:content:pushType:)`` refuses `.token`.
public struct PushType: Sendable, Hashable {
    let name: String

    /// Updates by a push notification's token (Apple's push service).
    public static let token = PushType(name: "token")
}
