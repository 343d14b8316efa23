import AppexCommandCore
import AppexCore
import AppexHost
import ArgumentParser
import Foundation

/// `appex conform`: launches an extension as its host would and checks it against the wire
/// protocol (docs/protocol.md), one line per check, stopping at the first failure.
struct Conform: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that an extension speaks Appex's wire protocol (docs/protocol.md), in any language.",
        discussion: """
            Launches the extension as its host would (sealed, approved, sandboxed) and checks, in order: \
            the handshake; an answer to the test message; a cancelled call (the connection still \
            answers the next call at once); a deadline (the same); a large payload (sent in sealed \
            shared memory); a frame of an unknown kind (the extension must end the connection); and \
            the host's death (the extension must exit within 1 s). Prints one line per check and exits \
            with status 1 at the first failure, naming it.
            """
    )

    @Argument(help: ArgumentHelp("The extension bundle.", valueName: "PATH.appex"))
    var path: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The host app (default: the app whose Extensions/ folder holds the bundle).",
            valueName: "HOST.app"
        )
    )
    var host: String?

    @Option(help: ArgumentHelp("The test message, as JSON: one the extension's point answers.", valueName: "JSON"))
    var message = "{}"

    @Option(
        name: .customLong("slow-message"),
        help: ArgumentHelp(
            "A message the extension takes at least 1 s to answer: the cancellation and deadline checks then prove the work stopped waiting, not only that the connection survived.",
            valueName: "JSON"
        )
    )
    var slowMessage: String?

    func run() async throws {
        let environment = AppexEnvironment.current()
        let bundlePath = AppexBundle.normalized(path)
        guard let hostPath = host.map(AppexBundle.normalized) ?? Self.containingApp(of: bundlePath) else {
            throw fail(
                AppexError(
                    .invalidValue,
                    "\(bundlePath) is not inside an app's Extensions/ folder: give its host with --host HOST.app",
                    context: AppexError.Context(path: bundlePath)
                )
            )
        }
        let identity = try reporting { () throws(AppexError) in
            let discovery = try ExtensionDiscovery(hostBundleAt: hostPath, environment: environment)
            let found = try discovery.snapshot().extensions.first { $0.path == bundlePath }
            guard let found, found.state == .enabled, let identity = found.identity else {
                var diagnosis: [String]?
                if let identifier = found?.bundleIdentifier {
                    diagnosis = try discovery.diagnose(bundleIdentifier: identifier).lines
                }
                throw AppexError(
                    .refused,
                    "\(hostPath) does not launch \(bundlePath): "
                        + (diagnosis?.joined(separator: " ") ?? "no valid extension there for this host"),
                    context: AppexError.Context(path: bundlePath)
                )
            }
            return identity
        }
        let suite = ConformanceSuite(
            identity: identity,
            hostPath: hostPath,
            environment: environment,
            message: Array(message.utf8),
            slowMessage: slowMessage.map { Array($0.utf8) }
        )
        do {
            try await suite.run()
        } catch let failure as ConformanceSuite.Failure {
            print("FAIL \(failure.check): \(failure.reason)")
            if let output = failure.output {
                printOutput(output, of: identity.bundleIdentifier, environment: environment)
            }
            throw ExitCode.failure
        }
        print("\(identity.bundleIdentifier) conforms to Appex's wire protocol \(ConformanceSuite.protocolVersion)")
    }

    /// The app whose `Extensions/` folder holds `bundle`, if one does.
    static func containingApp(of bundle: String) -> String? {
        let folder = (bundle as NSString).deletingLastPathComponent
        guard (folder as NSString).lastPathComponent == "Extensions" else { return nil }
        let app = (folder as NSString).deletingLastPathComponent
        return app.hasSuffix(".app") ? app : nil
    }
}
