package import AppexVocabulary
package import ArgumentParser
import Foundation

// MARK: - Reporting failures
//
// Every failure of every command is an AppexError printed by report(_:): `appex: ` and the
// error's description (code, message, underlying error, one line per problem) on standard
// error, and exit code 1. Commands stop with `throw fail(error)` or run their work in
// reporting { }; nothing else prints an error.

/// Prints `error` on standard error as every command reports a failure: `appex: CODE: MESSAGE`,
/// the underlying error, then one line per problem.
package func report(_ error: AppexError) {
    FileHandle.standardError.write(Data("appex: \(error)\n".utf8))
}

/// Reports `error` and returns exit code 1, for the command to throw.
package func fail(_ error: AppexError) -> ExitCode {
    report(error)
    return ExitCode.failure
}

/// Runs `body`; an ``AppexError`` it throws is reported and the command fails with exit code 1.
package func reporting<T>(_ body: () throws(AppexError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw fail(error)
    }
}

/// As the blocking ``reporting(_:)``, for async work.
package func reporting<T>(_ body: () async throws(AppexError) -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw fail(error)
    }
}
