import AppexHost
import AppexStore
import AppexWidgetHost
import AppexWidgetKit
import ArgumentParser
import ContactsKit
import Dispatch
import Foundation

/// The app left running: it keeps the contacts and its widgets current and offers translators as
/// the owner approves them, until SIGINT or SIGTERM.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Stay up: sync while logged in, redraw the widgets when they change, follow the translators the owner allows; stops on SIGINT or SIGTERM."
    )
    @Option(help: ArgumentHelp("Seconds between two syncs while logged in.", valueName: "SECONDS"))
    var syncInterval: Double = 300

    func run() async throws {
        try await reporting {
            let app = try App.launched()
            let monitor = try await AppExtensionPoint.Monitor(
                appExtensionPoint: app.translatePoint,
                hostBundleAt: app.bundlePath,
                environment: app.environment
            )
            let widgets = try app.widgetHost()
            let bundle = URL(fileURLWithPath: app.bundlePath).resolvingSymlinksInPath().path
            let interval = Duration.milliseconds(Int64(max(syncInterval, 0.1) * 1000))
            let stop = StopSignals()
            say("ContactsExplorer running (pid \(getpid())); stop it with Ctrl-C")
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // The translators offered, each time the owner's decisions or the installs change.
                    var offered: [String]?
                    for await snapshot in monitor.updates {
                        let names = snapshot.identities.map { TerminalText.safe($0.localizedName) }.sorted()
                        if names != offered {
                            say("translators: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
                        }
                        offered = names
                    }
                }
                group.addTask {
                    // The app's widgets, redrawn when what they show changes (the system's widget
                    // host decides when a widget's timeline is due).
                    let renderer = TerminalRenderer(colors: false)
                    for await states in widgets.updates(family: .systemMedium) {
                        let mine = states.filter { $0.app == bundle && $0.discovered.state == .enabled }
                        let drawing = mine.map { renderer.render($0.frame()) }.joined(separator: "\n")
                        say("widgets at \(ISO8601DateFormatter().string(from: Date())):\n\(drawing)")
                    }
                }
                group.addTask {
                    // The widget's data requests, answered as they arrive (while the session is
                    // behind the passcode; no request comes otherwise).
                    do { try await app.serveUntilCancelled() } catch  where !Task.isCancelled {
                        say("cannot answer the widget's requests: \(error)")
                    } catch {}
                }
                group.addTask {
                    // The contacts, synced while a user is logged in; the widget reloads after a change.
                    var lastProblem: String?
                    while !Task.isCancelled {
                        do {
                            if try app.isLoggedIn() {
                                let report = try await ContactsSync(api: try app.api(), store: try app.store()).run {
                                    _,
                                    _ in
                                }
                                if report.received > 0 {
                                    app.reloadWidget()
                                    say("synced: \(report.received) contacts")
                                }
                                lastProblem = nil
                            }
                        } catch is CancellationError {
                            return  // the app is stopping
                        } catch {
                            if Task.isCancelled { return }  // a request cut short by the stop
                            // Said once, not at every round.
                            let problem = "\(error)"
                            if problem != lastProblem { say("sync failed: \(problem)") }
                            lastProblem = problem
                        }
                        try await Task.sleep(for: interval)
                    }
                }
                group.addTask {
                    let signal = await stop.next()
                    say("ContactsExplorer stopping (\(signal == SIGINT ? "SIGINT" : "SIGTERM"))")
                    throw CancellationError()
                }
                do { try await group.next() } catch is CancellationError {}
                group.cancelAll()
            }
            say("ContactsExplorer stopped")
        }
    }
}

/// Writes a line to standard output at once (a pipe sees each line as it happens).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// SIGINT and SIGTERM, taken from their default (ending the process) while the app stops
/// cleanly; the first one puts the default back, so a second Ctrl-C ends a stop that hangs.
// @unchecked: the sources are made in init and only cancelled afterwards; DispatchSource is
// thread-safe, and the stream is Sendable.
final class StopSignals: @unchecked Sendable {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    /// Takes the signals now (before the app says it runs).
    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// The first SIGINT or SIGTERM; the signals' default is back when it returns.
    func next() async -> Int32 {
        var received = SIGTERM
        for await number in stream {
            received = number
            break
        }
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        return received
    }
}

extension App {
    /// Whether a user is logged in, as the app published it.
    func isLoggedIn() throws -> Bool {
        try LoginStatus(group: AppGroup(AppConfiguration.appGroup, context: context, environment: environment))
            .isUserLoggedIn
    }
}
