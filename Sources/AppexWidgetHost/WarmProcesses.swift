import AppexHost
import AppexSystem
import Synchronization

/// The widget extensions' processes kept up after they answered, as WidgetKit keeps a widget's
/// process for a while after a timeline request: the next reload of any of the extension's
/// widgets then costs no launch.
///
/// Each is an ``/AppexHost/AppExtensionProcess`` whose idle timeout is the warm period: it ends its
/// process quietly once no call came for that long. One process per extension build (bundle
/// identifier and ``WidgetHost`` version); a fetch takes it out while it uses it, so one fetch at
/// a time talks to it. A process that ended — past its idle timeout, or by a crash, idle or
/// during a call — is never reused, nor is one relaunched after a crash during its fetch: the
/// next fetch makes a new one and launches it, exactly as a cold launch (with a new crash
/// budget). After each fetch, the least recently used processes
/// are ended while the warm ones together are over the memory budget.
final class WarmProcesses: Sendable {
    private struct Entry {
        let process: AppExtensionProcess
        let version: String
        var lastUsed: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The warm process of the extension `bundleIdentifier` at `version`, taken out of the pool;
    /// `nil` when none is running (one of another build is ended).
    func take(_ bundleIdentifier: String, version: String) -> AppExtensionProcess? {
        let entry = entries.withLock { $0.removeValue(forKey: bundleIdentifier) }
        guard let entry else { return nil }
        guard entry.version == version, entry.process.processIdentifier != nil else {
            WidgetHost.endInBackground([entry.process])
            return nil
        }
        return entry.process
    }

    /// Keeps `process` warm after a fetch, if it still runs and never crashed; then ends the least recently used
    /// while the warm processes' resident memory is over `budget` bytes. Returns the processes
    /// to end (not kept, or evicted).
    func keep(
        _ process: AppExtensionProcess,
        bundleIdentifier: String,
        version: String,
        budget: UInt64
    ) -> [AppExtensionProcess] {
        // A process that crashed during the fetch (and was launched again for the widgets after)
        // is not kept: as after a cold launch, the next fetch starts with a new crash budget.
        guard process.processIdentifier != nil, process.crashCount == 0 else { return [process] }
        return entries.withLock { entries -> [AppExtensionProcess] in
            var ended: [AppExtensionProcess] = []
            if let previous = entries.updateValue(
                Entry(process: process, version: version, lastUsed: .now),
                forKey: bundleIdentifier
            ), previous.process !== process {
                ended.append(previous.process)
            }
            // Those that ended meanwhile (their idle timeout, a crash) leave the pool.
            for (identifier, entry) in entries where entry.process.processIdentifier == nil {
                entries[identifier] = nil
                ended.append(entry.process)
            }
            var resident = entries.mapValues { entry in
                entry.process.processIdentifier.flatMap { ProcessControl.residentBytes(of: $0) } ?? 0
            }
            var total = resident.values.reduce(0, +)
            for (identifier, entry) in entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed })
            where total > budget {
                total -= resident.removeValue(forKey: identifier) ?? 0
                entries[identifier] = nil
                ended.append(entry.process)
            }
            return ended
        }
    }

    /// Forgets the warm process of `bundleIdentifier` when it is no longer running (it crashed
    /// while idle): the next fetch launches a new one.
    func dropIfEnded(_ bundleIdentifier: String) {
        let ended = entries.withLock { entries -> AppExtensionProcess? in
            guard let entry = entries[bundleIdentifier], entry.process.processIdentifier == nil else { return nil }
            entries[bundleIdentifier] = nil
            return entry.process
        }
        if let ended { WidgetHost.endInBackground([ended]) }
    }

    /// How many processes are warm now.
    var count: Int { entries.withLock { $0.values.filter { $0.process.processIdentifier != nil }.count } }

    /// The pids of the warm processes, by bundle identifier.
    var processIdentifiers: [String: Int32] {
        entries.withLock { $0.compactMapValues { $0.process.processIdentifier } }
    }

    /// Ends every warm process.
    func endAll() {
        let all = entries.withLock { entries -> [AppExtensionProcess] in
            defer { entries = [:] }
            return entries.values.map(\.process)
        }
        for process in all { process.invalidate() }
    }
}
