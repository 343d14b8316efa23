import AppexCommandCore
import AppexVocabulary
import AppexWindow
import ArgumentParser

/// `appex browse --host APP.app`: the extension browser (ExtensionKit's
/// `EXAppExtensionBrowserViewController`, seed 004) for any host, served as a window.
struct Browse: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Serve the extension browser of a host: a local web page of every extension of its points, where the owner enables and disables each.",
        discussion: """
            What ExtensionKit's extension browser shows inside an app, for any host: each extension's \
            state, team, point, entitlements and sandbox, and appex doctor's reasons when it cannot run, \
            current without reload; its switch approves or disables it as appex enable and appex disable \
            do. Binds [::1] and 127.0.0.1 on one port and prints the login link on the first line of \
            standard output; SIGUSR1 prints a new one. A session ends with its page's End session, after \
            --idle-limit minutes with no page of it open, or (--single-session) when a newer link is used. \
            Stops on SIGINT or SIGTERM.
            """
    )

    @OptionGroup var hostOptions: HostOptions
    @OptionGroup var window: WindowOptions

    func run() async throws {
        let browser = try await reporting { () async throws(AppexError) in
            try await ExtensionBrowserPage(hostBundleAt: hostOptions.host, path: "/")
        }
        try await window.serve([browser], title: "Extensions", stopped: "extension browser stopped")
    }
}
