package import AppexCore
package import AppexSystem
import AppexVocabulary
import CoreMetrics
import Foundation
package import Logging
import Synchronization

/// What one extension has done in this process, counted twice at each event: into this
/// process's counter file (`$APPEX_HOME/Run/Statistics/PID.stats`, read by `appex stats`
/// while the process runs) and through swift-metrics, to whatever backend the host
/// bootstrapped (none: swift-metrics' no-op handlers). Every process of the same bundle in this
/// process and home shares one row. docs/decisions/0164-trace-context-across-the-boundary.md.
package final class ExtensionCounters: Sendable {
    /// The counters of a row, in file order (the file's layout is part of `appex stats`).
    enum Index: Int, CaseIterable {
        case launches, crashes, interruptions, calls, failedCalls, callNanoseconds, longestCallNanoseconds
        case bytesSent, bytesReceived, widgetReloads, reloadBudgetUsed, reloadBudget, refusals
        /// The last launched process, while it runs; `running`: how many of its processes run.
        case processIdentifier, running
    }

    private let file: CounterFile
    private let slot: Int
    private let launchCount: CoreMetrics.Counter
    private let crashCount: CoreMetrics.Counter
    private let interruptionCount: CoreMetrics.Counter
    private let callCount: CoreMetrics.Counter
    private let failedCallCount: CoreMetrics.Counter
    private let callDuration: CoreMetrics.Timer
    private let sentBytes: CoreMetrics.Counter
    private let receivedBytes: CoreMetrics.Counter
    private let reloadCount: CoreMetrics.Counter
    private let budgetUsed: CoreMetrics.Gauge
    private let refusalCount: CoreMetrics.Counter

    private init(file: CounterFile, bundleIdentifier: String) {
        self.file = file
        slot = file.slot(named: bundleIdentifier)
        let dimensions = [("extension", bundleIdentifier)]
        launchCount = Counter(label: "appex_extension_launches_total", dimensions: dimensions)
        crashCount = Counter(label: "appex_extension_crashes_total", dimensions: dimensions)
        interruptionCount = Counter(label: "appex_extension_interruptions_total", dimensions: dimensions)
        callCount = Counter(label: "appex_extension_calls_total", dimensions: dimensions)
        failedCallCount = Counter(label: "appex_extension_failed_calls_total", dimensions: dimensions)
        callDuration = Timer(label: "appex_extension_call_duration", dimensions: dimensions)
        sentBytes = Counter(label: "appex_extension_sent_bytes_total", dimensions: dimensions)
        receivedBytes = Counter(label: "appex_extension_received_bytes_total", dimensions: dimensions)
        reloadCount = Counter(label: "appex_widget_reloads_total", dimensions: dimensions)
        budgetUsed = Gauge(label: "appex_widget_reload_budget_used", dimensions: dimensions)
        refusalCount = Counter(label: "appex_extension_refusals_total", dimensions: dimensions)
    }

    private static let rows = Mutex<[String: ExtensionCounters]>([:])
    private static let files = Mutex<[String: CounterFile]>([:])

    /// The row of `bundleIdentifier` in this process's file under `environment`'s home.
    package static func of(
        _ bundleIdentifier: String,
        in environment: AppexEnvironment,
        logger: Logger
    ) -> ExtensionCounters {
        let key = environment.home + "\u{0}" + bundleIdentifier
        if let row = rows.withLock({ $0[key] }) { return row }
        let row = ExtensionCounters(file: file(for: environment, logger: logger), bundleIdentifier: bundleIdentifier)
        return rows.withLock { rows in
            if let existing = rows[key] { return existing }
            rows[key] = row
            return row
        }
    }

    /// This process's counter file under `environment`'s home, made the first time (one per
    /// folder, however the home is spelled); in memory only (and said once in the log) when the
    /// folder cannot hold it or is not this user's alone.
    private static func file(for environment: AppexEnvironment, logger: Logger) -> CounterFile {
        let name = ProcessInfo.processInfo.processName
        let directory = statisticsDirectory(in: environment)
        var made: CounterFile?
        var key = directory
        do throws(SystemError) {
            try Syscalls.makeDirectories(directory, mode: 0o700)
            key = try Syscalls.realPath(directory)
        } catch {
            logger.warning(
                "cannot make the statistics folder: `appex stats` will not see this process",
                metadata: ["directory": "\(directory)", "error": "\(error)"]
            )
            made = CounterFile(inMemoryNamed: name)
        }
        return files.withLock { files in
            if let file = files[key] { return file }
            if made == nil, !CounterFile.isPrivateDirectory(key) {
                logger.warning(
                    "the statistics folder is not this user's alone (mode 0700): `appex stats` will not see this process",
                    metadata: ["directory": "\(key)"]
                )
                made = CounterFile(inMemoryNamed: name)
            }
            let file: CounterFile
            if let made {
                file = made
            } else {
                do throws(SystemError) {
                    file = try CounterFile(creatingAt: key + "/\(ProcessControl.processIdentifier).stats", name: name)
                } catch {
                    logger.warning(
                        "cannot make this process's statistics file: `appex stats` will not see it",
                        metadata: ["directory": "\(key)", "error": "\(error)"]
                    )
                    file = CounterFile(inMemoryNamed: name)
                }
            }
            files[key] = file
            return file
        }
    }

    /// Where running hosts keep their counter files.
    static func statisticsDirectory(in environment: AppexEnvironment) -> String {
        environment.home + "/Run/Statistics"
    }

    // MARK: - Events

    /// A process of the extension answered its handshake: it runs, as `pid`.
    package func launched(pid: Int32) {
        file.add(1, to: Index.launches.rawValue, in: slot)
        file.add(1, to: Index.running.rawValue, in: slot)
        file.set(Index.processIdentifier.rawValue, in: slot, to: UInt64(UInt32(bitPattern: pid)))
        launchCount.increment()
    }

    /// Process `pid` ended without the host asking: an interruption.
    package func interrupted(pid: Int32) {
        file.add(1, to: Index.interruptions.rawValue, in: slot)
        interruptionCount.increment()
        stopped(pid: pid)
    }

    /// Process `pid` no longer runs (the host ended it, or it was interrupted).
    package func stopped(pid: Int32) {
        file.add(UInt64.max, to: Index.running.rawValue, in: slot)  // - 1
        file.replace(Index.processIdentifier.rawValue, in: slot, ifEqualTo: UInt64(UInt32(bitPattern: pid)), with: 0)
    }

    /// A process the host did not end was reaped with `status`: a crash when a signal or a
    /// non-zero status ended it, and a refusal too when it was a resource limit.
    package func reaped(_ status: ExitStatus) {
        guard status.signal != nil || (status.rawValue >> 8) & 0xff != 0 else { return }
        file.add(1, to: Index.crashes.rawValue, in: slot)
        crashCount.increment()
        if status.exceededLimit != nil { refused() }
    }

    /// One call ended after `nanoseconds`, having sent `sent` bytes and received `received`.
    package func called(sent: Int, received: Int, nanoseconds: UInt64, failed: Bool) {
        file.add(1, to: Index.calls.rawValue, in: slot)
        file.add(nanoseconds, to: Index.callNanoseconds.rawValue, in: slot)
        file.raise(Index.longestCallNanoseconds.rawValue, in: slot, to: nanoseconds)
        file.add(UInt64(sent), to: Index.bytesSent.rawValue, in: slot)
        file.add(UInt64(received), to: Index.bytesReceived.rawValue, in: slot)
        callCount.increment()
        callDuration.recordNanoseconds(Int64(clamping: nanoseconds))
        sentBytes.increment(by: sent)
        if received > 0 { receivedBytes.increment(by: received) }
        if failed {
            file.add(1, to: Index.failedCalls.rawValue, in: slot)
            failedCallCount.increment()
        }
    }

    /// The host refused it something its entitlements do not grant, or a limit ended it.
    package func refused() {
        file.add(1, to: Index.refusals.rawValue, in: slot)
        refusalCount.increment()
    }

    /// The widget host took a reload of one of its widgets from the day's budget (it asks for a
    /// timeline now): that widget has taken `used` of today's `budget`.
    package func reloaded(budgetUsed used: Int, of budget: Int) {
        file.add(1, to: Index.widgetReloads.rawValue, in: slot)
        file.set(Index.reloadBudgetUsed.rawValue, in: slot, to: UInt64(max(0, used)))
        file.set(Index.reloadBudget.rawValue, in: slot, to: UInt64(max(0, budget)))
        reloadCount.increment()
        budgetUsed.record(used)
    }
}
