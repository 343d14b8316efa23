/// An alert for an activity update, as ActivityKit's `AlertConfiguration`: accepted and not
/// shown (the widget desktop does not alert).
public struct AlertConfiguration: Sendable {
    /// An alert with a title, a body and a sound.
    public init(title: String, body: String, sound: AlertSound) {}

    /// An alert's sound.
    public struct AlertSound: Sendable {
        /// The system's sound.
        public static let `default` = AlertSound()
    }
}
