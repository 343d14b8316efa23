/// A Live Activity's Dynamic Island: its expanded regions and its compact and minimal views,
/// as WidgetKit's. They compile and are not drawn (Linux has no island); the activity's Lock
/// Screen view is its tile on the widget desktop.
public struct DynamicIsland: Sendable {
    /// The island's views: `expanded` regions, `compactLeading`, `compactTrailing`, `minimal`.
    public init<Expanded: View, Leading: View, Trailing: View, Minimal: View>(
        @DynamicIslandExpandedContentBuilder expanded: () -> DynamicIslandExpandedContent<Expanded>,
        @ViewBuilder compactLeading: () -> Leading,
        @ViewBuilder compactTrailing: () -> Trailing,
        @ViewBuilder minimal: () -> Minimal
    ) {}

    /// Accepted; not drawn.
    public func contentMargins(_ edges: Edge.Set = .all, _ length: CGFloat? = nil, for mode: Mode) -> DynamicIsland {
        self
    }

    /// Accepted; not drawn.
    public func keylineTint(_ color: Color?) -> DynamicIsland { self }

    /// Accepted; not used (the island is not drawn).
    public func widgetURL(_ url: URL?) -> DynamicIsland { self }

    /// The island's presentations, as `contentMargins(_:_:for:)` names them.
    public enum Mode: Sendable {
        case compact, expanded, minimal
    }
}

/// Where an expanded region sits in the Dynamic Island.
public struct DynamicIslandExpandedRegionPosition: Sendable, Hashable {
    let name: String

    /// Beside the camera, left.
    public static let leading = DynamicIslandExpandedRegionPosition(name: "leading")
    /// Beside the camera, right.
    public static let trailing = DynamicIslandExpandedRegionPosition(name: "trailing")
    /// Below the camera.
    public static let center = DynamicIslandExpandedRegionPosition(name: "center")
    /// Under the others.
    public static let bottom = DynamicIslandExpandedRegionPosition(name: "bottom")
}

/// One region of the expanded Dynamic Island, as WidgetKit's.
public struct DynamicIslandExpandedRegion<Content: View> {
    /// A region at `position` showing `content`.
    public init(
        _ position: DynamicIslandExpandedRegionPosition,
        priority: Double = 0,
        @ViewBuilder content: () -> Content
    ) {}

    /// Accepted; not drawn.
    public func contentMargins(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> Self { self }
}

/// The expanded Dynamic Island's regions, as a ``DynamicIslandExpandedContentBuilder`` makes them.
public struct DynamicIslandExpandedContent<Content: View> {
    init() {}
}

/// Builds the expanded Dynamic Island from ``DynamicIslandExpandedRegion``s, as WidgetKit's.
@resultBuilder
public enum DynamicIslandExpandedContentBuilder {
    /// A region.
    public static func buildExpression<Content: View>(
        _ region: DynamicIslandExpandedRegion<Content>
    ) -> DynamicIslandExpandedContent<EmptyView> { DynamicIslandExpandedContent() }

    /// Regions another builder made.
    public static func buildExpression<Content: View>(
        _ content: DynamicIslandExpandedContent<Content>
    ) -> DynamicIslandExpandedContent<EmptyView> { DynamicIslandExpandedContent() }

    /// The regions, in order.
    public static func buildBlock(
        _ parts: DynamicIslandExpandedContent<EmptyView>...
    ) -> DynamicIslandExpandedContent<EmptyView> { DynamicIslandExpandedContent() }

    /// Regions shown when a condition holds.
    public static func buildOptional(
        _ part: DynamicIslandExpandedContent<EmptyView>?
    ) -> DynamicIslandExpandedContent<EmptyView> { DynamicIslandExpandedContent() }

    /// One of two sets of regions.
    public static func buildEither(
        first part: DynamicIslandExpandedContent<EmptyView>
    ) -> DynamicIslandExpandedContent<EmptyView> { part }

    /// One of two sets of regions.
    public static func buildEither(
        second part: DynamicIslandExpandedContent<EmptyView>
    ) -> DynamicIslandExpandedContent<EmptyView> { part }
}
