public import Foundation

/// A Live Activity's content at one moment: its state, when it goes stale, and how relevant it
/// is beside other activities, as ActivityKit's `ActivityContent`.
public struct ActivityContent<State: Codable & Hashable & Sendable>: Sendable, Hashable {
    /// The state shown.
    public var state: State
    /// After this date the content is out of date (the activity's view gets `isStale`).
    public var staleDate: Date?
    /// Higher shows first among an app's activities. Default 0.
    public var relevanceScore: Double

    /// Content of `state`, stale after `staleDate`, ranked by `relevanceScore`.
    public init(state: State, staleDate: Date?, relevanceScore: Double = 0) {
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
    }
}
