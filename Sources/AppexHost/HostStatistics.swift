public import AppexCore
import AppexSystem
public import AppexVocabulary

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

/// A running host process — an app, or the widget host — and what each extension it launched
/// has done there: what `appex stats` shows. Every process that launches an extension keeps its
/// figures in `$APPEX_HOME/Run/Statistics/PID.stats`, a file it maps and counts into; reading
/// it costs the host nothing.
public struct HostStatistics: Sendable, Hashable, Codable {
    /// The host's process identifier.
    public var processIdentifier: Int32
    /// Its process name.
    public var name: String
    /// One row per extension it has launched, in the order of their first launch.
    public var extensions: [ExtensionStatistics]

    /// Every running host process of `environment`'s home, by process identifier. A file left
    /// by a host that ended (even by `kill -9`) is removed, not shown.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `fileSystem` when the statistics folder exists
    ///   but cannot be read.
    public static func running(in environment: AppexEnvironment = .current()) throws(AppexError) -> [HostStatistics] {
        let directory = ExtensionCounters.statisticsDirectory(in: environment)
        let names: [String]
        do { names = try Syscalls.directoryEntries(directory) } catch {
            if error.errno == .noSuchFileOrDirectory { return [] }
            throw AppexError(
                .fileSystem,
                "cannot read the statistics folder",
                context: AppexError.Context(path: directory),
                underlyingError: error
            )
        }
        var hosts: [HostStatistics] = []
        for name in names where name.hasSuffix(".stats") {
            let path = directory + "/" + name
            guard let contents = CounterFile.read(path) else { continue }
            guard contents.writerIsRunning, name == "\(contents.processIdentifier).stats" else {
                // Its host ended without a word: nothing reads its figures again.
                try? Syscalls.removeFile(path)
                continue
            }
            hosts.append(
                HostStatistics(
                    processIdentifier: contents.processIdentifier,
                    name: contents.name,
                    extensions: contents.slots.map {
                        ExtensionStatistics(bundleIdentifier: $0.name, counters: $0.counters)
                    }
                )
            )
        }
        return hosts.sorted { $0.processIdentifier < $1.processIdentifier }
    }
}
