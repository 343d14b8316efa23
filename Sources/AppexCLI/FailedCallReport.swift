import AppexCommandCore
import AppexCore
import AppexHost
import ArgumentParser
import Foundation

/// Reports a call's failure, ends the process, then prints what it printed in the call: the
/// exit code to throw.
func failed(_ error: AppexError, process: AppExtensionProcess, environment: AppexEnvironment) async -> ExitCode {
    let failure = fail(error)
    process.invalidate()
    printOutput(
        await process.printedLines(waitingAtMost: .seconds(1)),
        of: process.configuration.identity.bundleIdentifier,
        environment: environment
    )
    return failure
}

/// Prints, on standard error, what an extension printed during a call that failed: its lines
/// in its log (``ExtensionLog``), or that it printed nothing.
func printOutput(_ lines: [String], of bundleIdentifier: String, environment: AppexEnvironment) {
    let path = (try? ExtensionLog(bundleIdentifier: bundleIdentifier, environment: environment))?.path ?? "its log"
    var text: String
    if lines.isEmpty {
        text = "\(bundleIdentifier) printed nothing in this call (its log: \(path))\n"
    } else {
        text = "\(bundleIdentifier) printed (\(path); all of it: appex log \(bundleIdentifier)):\n"
        for line in lines { text += "  \(line)\n" }
    }
    FileHandle.standardError.write(Data(text.utf8))
}
