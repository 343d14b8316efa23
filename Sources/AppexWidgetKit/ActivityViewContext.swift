/// What a Live Activity's views are drawn from, as WidgetKit's `ActivityViewContext`.
public struct ActivityViewContext<Attributes: ActivityAttributes>: Sendable {
    /// The activity's attributes, as the app requested it.
    public let attributes: Attributes
    /// Its content state now.
    public let state: Attributes.ContentState
    /// `true` once its content is past its stale date.
    public let isStale: Bool
    /// The activity's identifier.
    public let activityID: String
}

/// The configuration the widget host sends to draw an activity: request 05's JSON for an
/// activity's kind (docs/protocol.md §10).
struct ActivityPayload<Attributes: ActivityAttributes>: Decodable {
    let id: String
    let attributes: Attributes
    let state: Attributes.ContentState
    let isStale: Bool
}
