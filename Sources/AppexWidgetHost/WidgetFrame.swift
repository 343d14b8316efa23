public import AppexWidgetKit
import Foundation

/// What a renderer draws: one widget, in one family, at one moment.
public struct WidgetFrame: Sendable {
    /// The widget's kind.
    public var kind: String
    /// The name people see, the box's title.
    public var displayName: String
    /// The family drawn.
    public var family: WidgetFamily
    /// The entry's view; `nil` when the widget has nothing to show yet.
    public var tree: ViewTree?
    /// A line about the widget's state when it is not simply current ("stale: …", "reload budget
    /// used up …"); `nil` when all is well.
    public var status: String?
    /// The moment drawn: dates in texts (`.relative`, `.timer`) are formatted against it.
    public var now: Date

    /// A frame of the widget `kind`.
    public init(
        kind: String,
        displayName: String,
        family: WidgetFamily,
        tree: ViewTree?,
        status: String? = nil,
        now: Date = Date()
    ) {
        self.kind = kind
        self.displayName = displayName
        self.family = family
        self.tree = tree
        self.status = status
        self.now = now
    }
}
