public import AppexCore
import AppexStore
import AppexSystem
import AppexVocabulary
import Foundation

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
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment.variables { variables[name] = value }
        variables[BackgroundTaskScheduler.backgroundRunVariable] = "1"
        variables["APPEX_BUNDLE_PATH"] = app.path
        let run = Subprocess(
            app.path + "/" + executable,
            environment: variables,
            workingDirectory: FileManager.default.currentDirectoryPath
        )
        // The host never outlives the run: past the time limit it is stopped, and a cancelled
        // caller kills it.
        let outcome: Subprocess.Outcome
        do { outcome = try await run.run(timeLimit: timeLimit, grace: .seconds(2)) } catch {
            throw AppexError(
                .launchFailed,
                "cannot launch \(app.path) for a background run",
                context: AppexError.Context(path: app.path),
                underlyingError: error
            )
        }
        return BackgroundRun(
            host: identifier,
            due: due,
            exitStatus: outcome.exitCode ?? outcome.status.signal,
            wasSignalled: outcome.status.signal != nil,
            timedOut: outcome.timedOut
        )
    }
}
