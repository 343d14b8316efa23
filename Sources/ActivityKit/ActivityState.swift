/// Where a Live Activity is in its life, as ActivityKit's `ActivityState`.
public enum ActivityState: String, Sendable, Hashable, Codable {
    /// Running: the widget desktop shows it.
    case active
    /// Ended: shown with its last content until its dismissal date.
    case ended
    /// Ended and no longer shown.
    case dismissed
    /// Running, but its content is past its stale date.
    case stale
}
