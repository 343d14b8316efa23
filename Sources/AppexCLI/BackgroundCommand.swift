import AppexCommandCore
import AppexCore
import AppexSecureStore
import ArgumentParser
import Foundation

/// `appex background`: a host's background runs, for a systemd timer or cron.
struct Background: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "background",
        abstract: "Run a host app's due background tasks.",
        subcommands: [BackgroundRunCommand.self]
    )
}

struct BackgroundRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Launch the host in the background if one of its task requests is due.",
        discussion:
            "The host is launched with APPEX_BACKGROUND_RUN=1 and runs its due tasks (BackgroundTaskScheduler.runDueTasks); past --time-limit it is stopped. Nothing due: nothing is launched. Exit status 1 when the host failed or was stopped."
    )
    @Option(help: ArgumentHelp("The host app bundle.", valueName: "HOST.app")) var host: String
    @Option(help: ArgumentHelp("Seconds the host may run.", valueName: "SECONDS")) var timeLimit = 30

    func run() async throws {
        let limit = Duration.seconds(timeLimit)
        let run = try await reporting { () async throws(AppexError) in
            try await BackgroundRun.run(hostAt: host, timeLimit: limit)
        }
        guard let status = run.exitStatus else {
            print("nothing due for \(run.host)")
            return
        }
        let tasks = run.due.joined(separator: ", ")
        if run.timedOut {
            throw fail(
                AppexError(
                    .deadlineExceeded,
                    "\(run.host) ran past \(timeLimit) s in its background run (due: \(tasks)) and was stopped"
                )
            )
        }
        guard status == 0 else {
            throw fail(
                AppexError(.launchFailed, "\(run.host)'s background run (due: \(tasks)) ended with status \(status)")
            )
        }
        print("\(run.host) ran in the background: \(tasks)")
    }
}
