import AppexCommandCore
import AppexCore
import AppexHost
import ArgumentParser
import Foundation

/// `appex log`: what an extension printed, from every host that launched it.
struct Log: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what an extension wrote to its standard output and standard error.",
        discussion: """
            Every host writes each line an extension prints to $APPEX_HOME/Logs/BUNDLE_ID.log, as \
            `TIME [PID] HOST: LINE`; past 1 MiB the file becomes BUNDLE_ID.log.1, replacing the one \
            before. Prints both, oldest first.
            """
    )

    @Argument(help: "The extension's bundle identifier.")
    var bundleIdentifier: String

    @Option(help: ArgumentHelp("Only the lines of this process of the extension.", valueName: "PID"))
    var pid: Int32?

    @Flag(help: "After the lines kept, print each new line as a host writes it, until stopped.")
    var follow = false

    func run() async throws {
        let log = try reporting { () throws(AppexError) in
            try ExtensionLog(bundleIdentifier: bundleIdentifier)
        }
        if follow {
            do {
                for try await line in log.follow(ofProcess: pid) {
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                }
            } catch let error as AppexError {
                throw fail(error)
            }
            return
        }
        let lines = try reporting { () throws(AppexError) in
            if let pid { return try log.lines(ofProcess: pid) }
            return try log.lines()
        }
        if lines.isEmpty {
            FileHandle.standardError.write(Data("\(bundleIdentifier) has printed nothing (\(log.path))\n".utf8))
        }
        for line in lines { print(line) }
    }
}
