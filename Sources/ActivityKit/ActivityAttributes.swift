/// What a Live Activity shows that does not change (``ActivityAttributes``' own properties) and
/// what does (its ``ContentState``), as ActivityKit's protocol.
///
/// ```swift
/// struct DeliveryAttributes: ActivityAttributes {
///     struct ContentState: Codable & Hashable {
///         var minutesLeft: Int
///     }
///     let orderNumber: String
/// }
/// ```
public protocol ActivityAttributes: Codable, Sendable {
    /// The part of the activity that changes with each ``Activity/update(_:)``.
    associatedtype ContentState: Codable & Hashable & Sendable
}
