/// What one extension has done in one host process since that process started.
public struct ExtensionStatistics: Sendable, Hashable, Codable {
    /// The extension's bundle identifier.
    public var bundleIdentifier: String
    /// Its process now, or `nil` while none runs.
    public var processIdentifier: Int32?
    /// Processes launched (each answered its handshake).
    public var launches: UInt64
    /// Processes that died by a signal or with a non-zero status, not on the host's word.
    public var crashes: UInt64
    /// Processes that ended without the host asking (crashes and clean exits alike).
    public var interruptions: UInt64
    /// Calls made (requests and remote actor invocations), answered or not.
    public var calls: UInt64
    /// Calls that ended in an error.
    public var failedCalls: UInt64
    /// The time every call took together.
    public var callTime: Duration
    /// The longest call.
    public var longestCall: Duration
    /// Bytes of requests sent.
    public var bytesSent: UInt64
    /// Bytes of replies received.
    public var bytesReceived: UInt64
    /// Timelines the widget host asked its widgets for, each taken from a widget's daily budget.
    public var widgetReloads: UInt64
    /// The reloads its last reloaded widget has taken today.
    public var reloadsToday: UInt64
    /// The widget host's daily reload budget per widget; 0 until it reloaded one of its widgets.
    public var dailyReloadBudget: UInt64
    /// What the host refused it: keychain requests its entitlements do not grant, and ends past
    /// its memory or CPU limit.
    public var refusals: UInt64

    /// The mean call, or `nil` before the first.
    public var meanCall: Duration? { calls == 0 ? nil : callTime / Double(calls) }

    init(bundleIdentifier: String, counters: [UInt64]) {
        func value(_ index: ExtensionCounters.Index) -> UInt64 {
            index.rawValue < counters.count ? counters[index.rawValue] : 0
        }
        self.bundleIdentifier = bundleIdentifier
        let pid = Int32(truncatingIfNeeded: value(.processIdentifier))
        processIdentifier = pid == 0 ? nil : pid
        launches = value(.launches)
        crashes = value(.crashes)
        interruptions = value(.interruptions)
        calls = value(.calls)
        failedCalls = value(.failedCalls)
        callTime = .nanoseconds(Int64(clamping: value(.callNanoseconds)))
        longestCall = .nanoseconds(Int64(clamping: value(.longestCallNanoseconds)))
        bytesSent = value(.bytesSent)
        bytesReceived = value(.bytesReceived)
        widgetReloads = value(.widgetReloads)
        reloadsToday = value(.reloadBudgetUsed)
        dailyReloadBudget = value(.reloadBudget)
        refusals = value(.refusals)
    }
}
