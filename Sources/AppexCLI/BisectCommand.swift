import AppexCommandCore
import AppexCore
import AppexHost
import AppexSystem
import AppexWidgetHost
import ArgumentParser
import Foundation

/// `appex bisect`: VS Code's Extension Bisect for a host's extensions or the system's widgets.
struct Bisect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find the one extension whose presence makes a command fail, by enabling halves of the enabled ones.",
        discussion: """
            Runs COMMAND (with /bin/sh -c) with every extension of the host that is enabled now, \
            with none, then with halves of them, each run deciding which half holds the one to \
            blame, as VS Code's Extension Bisect does; prints it. Every decision it changes is \
            written first to $APPEX_HOME/Bisect/HOST.json and put back at the end, on SIGINT or \
            SIGTERM too; after a bisect that was killed, the next one (or --restore) puts them back \
            first. Exit status 0 when it found one, 1 when the failure is no single extension's.
            """
    )

    @Option(help: ArgumentHelp("The host app whose extensions to bisect.", valueName: "HOST.app"))
    var host: String?

    @Flag(help: "Bisect the widgets of the system's widget host instead of a host app's extensions.")
    var widgets = false

    @Option(
        help: ArgumentHelp(
            "The command that fails with the extension to find (exit status not 0).",
            valueName: "COMMAND"
        )
    )
    var test: String?

    @Flag(help: "Only put back the decisions of a bisect that was killed.")
    var restore = false

    func run() async throws {
        let discovery = try self.discovery()
        let journal = try reporting { () throws(AppexError) in
            try BisectJournal(discovery: discovery)
        }
        // One bisect of a host at a time: a second would take the first's journal for one a crash
        // left, and put back decisions the first still needs.
        let lock = try reporting { () throws(AppexError) in
            let lock: FileLock
            do throws(SystemError) { lock = try FileLock(path: journal.path + ".lock") } catch {
                throw .fileSystem("lock", journal.path, error)
            }
            let taken: Bool
            do throws(SystemError) { taken = try lock.tryLock() } catch {
                throw .fileSystem("lock", journal.path, error)
            }
            guard taken else {
                throw AppexError(
                    .refused,
                    "another appex bisect of \(discovery.hostBundleIdentifier) is running (its journal: \(journal.path)): let it end, or stop it",
                    context: .init(path: journal.path)
                )
            }
            return lock
        }
        defer { withExtendedLifetime(lock) {} }
        if let restored = try reporting({ () throws(AppexError) in try journal.restoreLeftover() }) {
            print("put back \(restored) decision\(restored == 1 ? "" : "s") of a bisect that did not end")
        }
        if restore { return }
        guard let test else {
            throw fail(AppexError(.invalidValue, "no command to bisect: give --test 'COMMAND' (or --restore)"))
        }
        let candidates = try reporting { () throws(AppexError) in
            try discovery.snapshot().extensions.filter { $0.state == .enabled }.compactMap(\.bundleIdentifier).sorted()
        }
        guard !candidates.isEmpty else {
            throw fail(AppexError(.notFound, "\(discovery.hostBundleIdentifier) has no enabled extension to bisect"))
        }
        try reporting { () throws(AppexError) in try journal.begin(candidates) }
        let search = Task { try await Self.search(candidates, discovery: discovery, test: test) }
        let signals = Terminal.onStopRequest { _ in search.cancel() }
        let outcome = await search.result as Result<String?, any Error>
        withExtendedLifetime(signals) {}
        try reporting { () throws(AppexError) in try journal.end() }
        print("put back the decisions about \(candidates.count) extension\(candidates.count == 1 ? "" : "s")")
        switch outcome {
        case .success(let found?):
            print("\(found) makes the command fail")
        case .success(nil):
            throw ExitCode.failure
        case .failure(let error as AppexError):
            throw fail(error)
        case .failure(is CancellationError):
            throw ExitCode(130)
        case .failure(let error):
            throw fail(AppexError(.launchFailed, "cannot run the command", underlyingError: error))
        }
    }

    /// The discovery whose decisions to bisect: the host's, or the widget host's.
    func discovery() throws -> ExtensionDiscovery {
        switch (host, widgets) {
        case (let host?, false):
            return try reporting { () throws(AppexError) in try ExtensionDiscovery(hostBundleAt: host) }
        case (nil, true):
            return try reporting { () throws(AppexError) in try WidgetHost().discovery }
        default:
            throw fail(AppexError(.invalidValue, "name what to bisect: --host HOST.app, or --widgets"))
        }
    }

    /// Halves the candidates until one is left; `nil` when the failure is no single one's.
    static func search(_ all: [String], discovery: ExtensionDiscovery, test: String) async throws -> String? {
        func fails(enabling enabled: [String]) async throws -> Bool {
            for identifier in all {
                try discovery.setEnabled(enabled.contains(identifier), bundleIdentifier: identifier)
            }
            var command = Subprocess(
                "/bin/sh",
                arguments: ["-c", test],
                environment: ProcessInfo.processInfo.environment,
                workingDirectory: FileManager.default.currentDirectoryPath
            )
            command.output = .discarded
            command.errorOutput = .discarded
            let outcome = try await command.run()
            try Task.checkCancellation()
            let failed = outcome.exitCode != 0
            print("\(failed ? "fails" : "passes") with \(enabled.count) of \(all.count) enabled\(describe(enabled))")
            return failed
        }
        guard try await fails(enabling: all) else {
            print("the command passes with every extension enabled: nothing to find")
            return nil
        }
        if try await fails(enabling: []) {
            print("the command fails with none enabled: no extension is to blame")
            return nil
        }
        var candidates = all
        while candidates.count > 1 {
            let half = Array(candidates.prefix(candidates.count / 2))
            candidates = try await fails(enabling: half) ? half : Array(candidates.dropFirst(half.count))
        }
        guard try await fails(enabling: candidates) else {
            print("\(candidates[0]) alone does not make it fail: the failure needs more than one extension")
            return nil
        }
        return candidates[0]
    }

    static func describe(_ enabled: [String]) -> String {
        enabled.isEmpty || enabled.count > 4 ? "" : ": " + enabled.joined(separator: ", ")
    }
}

/// The decisions a bisect changes, as they were, in `$APPEX_HOME/Bisect/HOST.json` until they
/// are put back: a bisect that is killed leaves the file, and the next one puts them back first.
struct BisectJournal {
    let discovery: ExtensionDiscovery
    let path: String

    /// What the file holds: each extension's decision before, `nil` when there was none.
    struct Contents: Codable {
        var decisions: [String: ApprovalRegistry.Decision?]
    }

    init(discovery: ExtensionDiscovery) throws(AppexError) {
        self.discovery = discovery
        let folder = discovery.environment.home + "/Bisect"
        do { try Syscalls.makeDirectories(folder, mode: 0o700) } catch {
            throw .fileSystem("create directory", folder, error)
        }
        path = folder + "/\(discovery.hostBundleIdentifier).json"
    }

    /// Writes the candidates' decisions as they are, before any changes (whole: written beside,
    /// synced, then renamed into place).
    func begin(_ candidates: [String]) throws(AppexError) {
        var contents = Contents(decisions: [:])
        for identifier in candidates {
            contents.decisions[identifier] = .some(try discovery.recordedDecision(bundleIdentifier: identifier))
        }
        let bytes: Data
        do { bytes = try JSONEncoder().encode(contents) } catch {
            throw AppexError(.coding, "cannot write the bisect's journal", underlyingError: error)
        }
        do { try Syscalls.writeFileAtomically(path, bytes: Array(bytes), mode: 0o600) } catch {
            throw .fileSystem("write", path, error)
        }
    }

    /// Puts every decision back and removes the file.
    func end() throws(AppexError) {
        _ = try restoreLeftover()
    }

    /// Puts back the decisions of a journal left here, if any; returns how many.
    func restoreLeftover() throws(AppexError) -> Int? {
        let bytes: [UInt8]
        do { bytes = try Syscalls.readFile(path, limit: 16 << 20) } catch  where error.errno == .noSuchFileOrDirectory {
            return nil
        } catch {
            throw .fileSystem("read", path, error)
        }
        let contents: Contents
        do { contents = try JSONDecoder().decode(Contents.self, from: Data(bytes)) } catch {
            throw AppexError(
                .corruptValue,
                "the bisect's journal \(path) cannot be read: put its decisions back with appex enable/disable, then delete it",
                context: .init(path: path),
                underlyingError: error
            )
        }
        for (identifier, decision) in contents.decisions {
            try discovery.restoreDecision(decision, bundleIdentifier: identifier)
        }
        do { try Syscalls.removeFile(path) } catch { throw .fileSystem("remove", path, error) }
        return contents.decisions.count
    }
}
