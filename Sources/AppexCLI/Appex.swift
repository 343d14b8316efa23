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
        subcommands: [
            List.self, Enable.self, Disable.self, Doctor.self,
            Validate.self, Inspect.self, Keygen.self, Sign.self, MakeBundle.self, Call.self, Defaults.self, Keychain.self, Auth.self,
        ]
    )
}

/// The `--host` option every registry command takes.
struct HostOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The host app bundle.", valueName: "HOST.app"))
    var host: String
}

/// Prints an Appex error the way every command does, and fails with exit code 1.
func fail(_ error: AppexError) -> ExitCode {
    printError("appex: \(error)")
    return ExitCode.failure
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Runs `body`, turning an ``AppexError`` into a message on standard error and exit code 1.
func reporting<T>(_ body: () throws(AppexError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw fail(error)
    }
}

func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(value)
    print(String(decoding: data, as: UTF8.self))
}
