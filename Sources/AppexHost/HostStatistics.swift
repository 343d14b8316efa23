public import AppexCore
import AppexSystem
public import AppexVocabulary

/// A running host process — an app, or the widget host — and what each extension it launched
/// has done there: what `appex stats` shows. Every process that launches an extension keeps its
/// figures in `$APPEX_HOME/Run/Statistics/PID.stats`, a file it maps and counts into; reading
/// it costs the host nothing.
public struct HostStatistics: Sendable, Hashable, Codable {
    /// The host's process identifier.
    public var processIdentifier: Int32
    /// Its process name.
    public var name: String
    /// One row per extension it has launched or called, in the order it first made a process
    /// object for each.
    public var extensions: [ExtensionStatistics]

    /// Every running host process of `environment`'s home, by process identifier. A file left
    /// by a host that ended (even by `kill -9`: the file lock it held is gone) is removed, not
    /// shown; a file that is not this user's, or not a counter file, is skipped.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `fileSystem` when the statistics folder exists
    ///   but cannot be read.
    @available(*, noasync, message: "reads files on this thread; use the async running(in:)")
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
            // A file whose host ended (even by `kill -9`) is removed as it is read.
            guard case .live(let contents)? = CounterFile.read(directory + "/" + name) else { continue }
            hosts.append(
                HostStatistics(
                    processIdentifier: contents.processIdentifier,
                    name: contents.name,
                    extensions: contents.slots.map {
                        ExtensionStatistics(bundleIdentifier: $0.name, counters: $0.counters)
                    }
                    .filter { $0.launches > 0 || $0.calls > 0 }  // made, never used: no row
                )
            )
        }
        return hosts.sorted { $0.processIdentifier < $1.processIdentifier }
    }

    /// Every running host process of `environment`'s home, as the blocking ``running(in:)``
    /// reads them, read off Swift's cooperative pool.
    public static func running(
        in environment: AppexEnvironment = .current()
    ) async throws(AppexError)
        -> [HostStatistics]
    {
        try await withoutBlockingThePool { () throws(AppexError) in try readRunning(in: environment) }
    }

    private static func readRunning(in environment: AppexEnvironment) throws(AppexError) -> [HostStatistics] {
        try running(in: environment)
    }
}
