/// A set of edges, for `.padding(_:_:)`.
public struct EdgeSet: OptionSet, Sendable, Hashable {
    /// The edges as bits.
    public let rawValue: Int
    /// Makes a set from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The top edge.
    public static let top = EdgeSet(rawValue: 1)
    /// The leading edge.
    public static let leading = EdgeSet(rawValue: 2)
    /// The bottom edge.
    public static let bottom = EdgeSet(rawValue: 4)
    /// The trailing edge.
    public static let trailing = EdgeSet(rawValue: 8)
    /// Leading and trailing.
    public static let horizontal: EdgeSet = [.leading, .trailing]
    /// Top and bottom.
    public static let vertical: EdgeSet = [.top, .bottom]
    /// Every edge.
    public static let all: EdgeSet = [.top, .leading, .bottom, .trailing]
}

/// `Edge.Set`, as SwiftUI spells it.
public enum Edge: Sendable, Hashable {
    /// The top edge.
    case top
    /// The leading edge.
    case leading
    /// The bottom edge.
    case bottom
    /// The trailing edge.
    case trailing
    /// A set of edges.
    public typealias Set = EdgeSet
}
