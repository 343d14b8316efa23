import AppexCommandCore
import AppexSystem
import AppexVocabulary
import AppexWindow
import ArgumentParser
import Foundation

/// The options of every command that serves a window (`appex widgets serve`, `appex browse`),
/// and the way each serves it: the login link first on standard output, another on SIGUSR1,
/// until SIGINT or SIGTERM.
struct WindowOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve on this port (on [::1] and 127.0.0.1), for a systemd unit or a firewall rule; by default the kernel picks a free one.",
            valueName: "PORT"
        )
    )
    var port: Int?

    @Flag(
        help:
            "Keep one session: a login link, once used, ends every other browser's session (by default each link used is a session of its own)."
    )
    var singleSession = false

    @Option(
        help: ArgumentHelp(
            "End a session after this many minutes with no page of it open and no request (default 480).",
            valueName: "MINUTES"
        )
    )
    var idleLimit = 480

    /// Serves `pages` titled `title` until SIGINT or SIGTERM, then prints `stopped`.
    func serve(_ pages: [any WindowPage], title: String, stopped: String) async throws {
        let window = try reporting { () throws(AppexError) in
            try WindowServer(
                configuration: .init(
                    title: title,
                    port: port,
                    singleSession: singleSession,
                    // Minutes as seconds, clamped: no number typed overflows (the window refuses ≤ 0).
                    idleLimit: .seconds(min(max(idleLimit, Int.min / 60), Int.max / 60) * 60)
                ),
                pages: pages
            )
        }
        let links = Terminal.onUserSignal {
            if let url = window.newLoginURL() {
                FileHandle.standardOutput.write(Data((url.absoluteString + "\n").utf8))
            }
        }
        defer { withExtendedLifetime(links) {} }
        try await reporting { () async throws(AppexError) in
            try await window.run(stopsOnSignals: true) { url in
                // Written at once, unbuffered: whoever started the window reads the link as it is printed.
                FileHandle.standardOutput.write(Data((url.absoluteString + "\n").utf8))
            }
        }
        FileHandle.standardOutput.write(Data((stopped + "\n").utf8))
    }
}
