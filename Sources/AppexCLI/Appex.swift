import AppexCommandCore
import AppexCore
import ArgumentParser
import Foundation
import Logging

/// `appex`: find, approve, validate and sign app extensions — the Linux cousin of `pluginkit`.
@main
struct Appex: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appex",
        abstract: "Find, approve, validate and sign app extensions.",
        discussion: """
            State lives under APPEX_HOME (default $XDG_DATA_HOME/appex, else ~/.local/share/appex). \
            Extensions outside a host's own Extensions/ folder are found on APPEX_EXTENSIONS_PATH \
            (colon-separated folders) and are unapproved until enabled.
            """,
        version: appexVersion,
        subcommands: [
            List.self, Enable.self, Disable.self, Browse.self, Doctor.self,
            Validate.self, Inspect.self, Keygen.self, Sign.self, MakeBundle.self, Call.self, Conform.self, Scene.self,
            Log.self, Bisect.self,
            Stats.self,
            Defaults.self,
            Keychain.self, Auth.self, Widgets.self, SecureStoreCommand.self, Aux.self, Background.self, New.self,
        ]
    )

    /// Runs the command with the libraries' logs (a host's warnings; an extension's output, at
    /// `info`) on standard error from `APPEX_LOG_LEVEL` up: `warning` by default, since an
    /// extension's output is in `appex log`.
    static func main() async {
        let level = ProcessInfo.processInfo.environment["APPEX_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level ?? .warning
            return handler
        }
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

/// The `--host` option every registry command takes.
struct HostOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The host app bundle.", valueName: "HOST.app"))
    var host: String
}

/// Prints `value` as sorted, pretty JSON on standard output.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data: Data
    do { data = try encoder.encode(value) } catch {
        throw fail(AppexError(.coding, "cannot print \(type(of: value)) as JSON", underlyingError: error))
    }
    print(String(decoding: data, as: UTF8.self))
}
