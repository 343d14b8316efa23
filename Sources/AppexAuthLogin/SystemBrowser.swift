import AppexSystem
package import Foundation

/// The desktop's browser, where a host's user signs in (RFC 8252: the system browser, never an
/// embedded view).
package enum SystemBrowser {
    /// The desktop's opener.
    static let opener = "/usr/bin/xdg-open"

    /// Hands `url` to `xdg-open`, when the machine has one, and lets it go (the event thread
    /// reaps it).
    ///
    /// - Returns: whether an opener was started.
    @discardableResult
    package static func open(_ url: URL) async -> Bool {
        guard FileManager.default.isExecutableFile(atPath: opener) else { return false }
        let run = Subprocess(opener, arguments: [url.absoluteString], environment: ProcessInfo.processInfo.environment)
        return (try? await run.start()) != nil
    }
}
