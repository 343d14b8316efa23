public import AppexCore
import AppexStore
import AppexSystem
import AppexVocabulary
import Foundation
import Synchronization

/// What one background run of a host did (`appex background run`).
public struct BackgroundRun: Sendable, Hashable {
    /// The host app.
    public let host: String
    /// The task identifiers that were due.
    public let due: [String]
    /// How the host ended: its exit status (or the signal that ended it, see ``wasSignalled``),
    /// or `nil` when nothing was due (it was not launched).
    public let exitStatus: Int32?
    /// Whether a signal ended the host (``exitStatus`` is then the signal's number).
    public let wasSignalled: Bool
    /// Whether it was stopped for running past the time limit.
    public let timedOut: Bool

    /// Runs what is due for the host app at `path`: when one of its background task requests is
    /// due, launches its executable with `APPEX_BACKGROUND_RUN=1` (and `APPEX_BUNDLE_PATH`, so
    /// `ProcessContext.current()` finds the app), which runs its due tasks
    /// (``BackgroundTaskScheduler/runDueTasks(now:)``) and exits; past `timeLimit` it is sent
    /// SIGTERM, then SIGKILL 2 s later. The host's output goes to this process's.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidBundle` when the app is not valid (its problems listed);
    ///   `launchFailed`.
    public static func run(
        hostAt path: String,
        timeLimit: Duration = .seconds(30),
        environment: AppexEnvironment = .current()
    ) async throws(AppexError) -> BackgroundRun {
        let app = AppexBundle.load(at: path, as: .hostApp)
        guard app.isValid, let identifier = app.info.bundleIdentifier, let executable = app.info.executableName else {
            throw AppexError(
                .invalidBundle,
                "the host app \(path) cannot be run in the background",
                context: AppexError.Context(path: path),
                problems: app.problems
            )
        }
        let due = try BackgroundTaskScheduler.dueTaskIdentifiers(
            hostBundleIdentifier: identifier,
            environment: environment
        )
        guard !due.isEmpty else {
            return BackgroundRun(host: identifier, due: [], exitStatus: nil, wasSignalled: false, timedOut: false)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: app.path + "/" + executable)
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment.variables { variables[name] = value }
        variables[BackgroundTaskScheduler.backgroundRunVariable] = "1"
        variables["APPEX_BUNDLE_PATH"] = app.path
        process.environment = variables
        let ended = AsyncStream<(Int32, Bool)>.makeStream()
        process.terminationHandler = { process in
            ended.continuation.yield((process.terminationStatus, process.terminationReason == .uncaughtSignal))
            ended.continuation.finish()
        }
        do { try process.run() } catch {
            throw AppexError(
                .launchFailed,
                "cannot launch \(app.path) for a background run",
                context: AppexError.Context(path: app.path),
                underlyingError: error
            )
        }
        let pid = process.processIdentifier
        let timedOut = Atomic<Bool>(false)
        let watchdog = Task {
            try await Task.sleep(for: timeLimit)
            timedOut.store(true, ordering: .relaxed)
            ProcessControl.signal(SIGTERM, toProcess: pid)
            try await Task.sleep(for: .seconds(2))
            ProcessControl.signal(SIGKILL, toProcess: pid)
        }
        // The host never outlives the run: a cancelled caller stops it as the time limit does.
        let status = await withTaskCancellationHandler {
            var statuses = ended.stream.makeAsyncIterator()
            return await statuses.next()
        } onCancel: {
            ProcessControl.signal(SIGKILL, toProcess: pid)
        }
        watchdog.cancel()
        let final: (Int32, Bool)
        if let status {
            final = status
        } else {
            // Cancelled before the end was seen: it was killed above; wait until it is reaped.
            process.waitUntilExit()
            final = (process.terminationStatus, process.terminationReason == .uncaughtSignal)
        }
        return BackgroundRun(
            host: identifier,
            due: due,
            exitStatus: final.0,
            wasSignalled: final.1,
            timedOut: timedOut.load(ordering: .relaxed)
        )
    }
}
