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
            Validate.self, Inspect.self, Keygen.self, Sign.self, MakeBundle.self, Call.self, Defaults.self,
            Keychain.self, Auth.self, Widgets.self, SecureStoreCommand.self, Aux.self, Background.self, New.self,
        ]
    )
}

/// The `--host` option every registry command takes.
struct HostOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The host app bundle.", valueName: "HOST.app"))
    var host: String
}

// MARK: - Reporting failures
//
// Every failure of every command is an AppexError printed by report(_:): `appex: ` and the
// error's description (code, message, underlying error, one line per problem) on standard
// error, and exit code 1. Commands stop with `throw fail(error)` or run their work in
// reporting { }; nothing else prints an error.

/// Prints `error` on standard error as every command reports a failure: `appex: CODE: MESSAGE`,
/// the underlying error, then one line per problem.
func report(_ error: AppexError) {
    FileHandle.standardError.write(Data("appex: \(error)\n".utf8))
}

/// Reports `error` and returns exit code 1, for the command to throw.
func fail(_ error: AppexError) -> ExitCode {
    report(error)
    return ExitCode.failure
}

/// Runs `body`; an ``AppexError`` it throws is reported and the command fails with exit code 1.
func reporting<T>(_ body: () throws(AppexError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw fail(error)
    }
}

/// As the blocking ``reporting(_:)``, for async work.
func reporting<T>(_ body: () async throws(AppexError) -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw fail(error)
    }
}

func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data: Data
    do { data = try encoder.encode(value) } catch {
        throw fail(AppexError(.coding, "cannot print \(type(of: value)) as JSON", underlyingError: error))
    }
    print(String(decoding: data, as: UTF8.self))
}
