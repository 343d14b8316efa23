/// What one extension has done in one host process since that process started.
public struct ExtensionStatistics: Sendable, Hashable, Codable {
    /// The extension's bundle identifier.
    public var bundleIdentifier: String
    /// Its last launched process, while it runs; `nil` while none runs.
    public var processIdentifier: Int32?
    /// How many of its processes run now (more than one when the host made several
    /// ``AppExtensionProcess`` objects for it).
    public var runningProcesses: UInt64
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
    /// The time every call took together, in nanoseconds.
    public var callNanoseconds: UInt64
    /// The longest call, in nanoseconds.
    public var longestCallNanoseconds: UInt64
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

    /// The time every call took together.
    public var callTime: Duration { .nanoseconds(Int64(clamping: callNanoseconds)) }
    /// The longest call.
    public var longestCall: Duration { .nanoseconds(Int64(clamping: longestCallNanoseconds)) }
    /// The mean call, or `nil` before the first.
    public var meanCall: Duration? { calls == 0 ? nil : .nanoseconds(Int64(clamping: callNanoseconds / calls)) }

    init(bundleIdentifier: String, counters: [UInt64]) {
        func value(_ index: ExtensionCounters.Index) -> UInt64 {
            index.rawValue < counters.count ? counters[index.rawValue] : 0
        }
        self.bundleIdentifier = bundleIdentifier
        runningProcesses = value(.running) > UInt64(Int32.max) ? 0 : value(.running)  // never below 0
        let pid = Int32(truncatingIfNeeded: value(.processIdentifier))
        processIdentifier = pid == 0 || runningProcesses == 0 ? nil : pid
        launches = value(.launches)
        crashes = value(.crashes)
        interruptions = value(.interruptions)
        calls = value(.calls)
        failedCalls = value(.failedCalls)
        callNanoseconds = value(.callNanoseconds)
        longestCallNanoseconds = value(.longestCallNanoseconds)
        bytesSent = value(.bytesSent)
        bytesReceived = value(.bytesReceived)
        widgetReloads = value(.widgetReloads)
        reloadsToday = value(.reloadBudgetUsed)
        dailyReloadBudget = value(.reloadBudget)
        refusals = value(.refusals)
    }
}
