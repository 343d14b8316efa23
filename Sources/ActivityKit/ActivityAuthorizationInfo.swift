/// Whether this app may start Live Activities, as ActivityKit's `ActivityAuthorizationInfo`.
///
/// On Linux nothing turns them off: a person ends one by removing its app's widget extension
/// (`appex widgets disable`).
public struct ActivityAuthorizationInfo: Sendable {
    /// Asks nothing: the answer is known.
    public init() {}

    /// `true`: the widget host shows every app's activities.
    public var areActivitiesEnabled: Bool { true }

    /// `false`: activities are not sent at frequent rates.
    public var frequentPushesEnabled: Bool { false }
}
