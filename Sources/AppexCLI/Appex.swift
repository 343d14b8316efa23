import AppexCommandCore
import AppexCore
import ArgumentParser
import Foundation

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
            Validate.self, Inspect.self, Keygen.self, Sign.self, MakeBundle.self, Call.self, Conform.self, Stats.self,
            Defaults.self,
            Keychain.self, Auth.self, Widgets.self, SecureStoreCommand.self, Aux.self, Background.self, New.self,
        ]
    )
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
