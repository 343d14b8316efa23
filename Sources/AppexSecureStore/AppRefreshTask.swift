public import Foundation
import Synchronization

/// A request to run a host's refresh task in the background, no earlier than a date (the shape
/// of BackgroundTasks' `BGAppRefreshTaskRequest`).
public struct AppRefreshTaskRequest: Sendable, Hashable {
    /// The task's identifier, as registered.
    public let identifier: String
    /// The earliest moment it may run; `nil`: at the next background run.
    public var earliestBeginDate: Date?

    /// A request for the task `identifier`.
    public init(identifier: String, earliestBeginDate: Date? = nil) {
        self.identifier = identifier
        self.earliestBeginDate = earliestBeginDate
    }
}

/// A refresh task running in the background (BackgroundTasks' `BGAppRefreshTask`).
public final class AppRefreshTask: Sendable {
    /// The task's identifier.
    public let identifier: String
    private let completion = Mutex<Bool?>(nil)

    init(identifier: String) { self.identifier = identifier }

    /// Says the task is done, and whether it did its work.
    public func setTaskCompleted(success: Bool) { completion.withLock { if $0 == nil { $0 = success } } }

    /// What the task said (`nil`: it did not say).
    var success: Bool? { completion.withLock { $0 } }
}
