import AppexCommandCore
import AppexCore
import AppexHost
import ArgumentParser
import Foundation

struct Call: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Launch an extension as its host would, send it one message, print the reply.",
        discussion:
            "The message is the JSON the extension's ConnectionHandler decodes; the reply is printed as the extension sent it."
    )

    @OptionGroup var hostOptions: HostOptions

    @Argument(help: "The extension's bundle identifier.")
    var bundleIdentifier: String

    @Argument(help: "The message, as JSON (or give --message-file).")
    var message: String?

    @Option(
        help: ArgumentHelp(
            "Read the message from FILE, or from standard input with -, instead of the argument (an argument is at most 128 KiB).",
            valueName: "FILE"
        )
    )
    var messageFile: String?

    @Option(help: ArgumentHelp("Seconds to wait for the reply.", valueName: "SECONDS"))
    var timeout: Double = 30

    @Flag(help: "After the reply, print the extension's pid and keep it running until this command is stopped.")
    var hold = false

    func run() async throws {
        let environment = AppexEnvironment.current()
        let bytes = try messageBytes()
        let found = try reporting { () throws(AppexError) in
            try ExtensionDiscovery(hostBundleAt: hostOptions.host, environment: environment).snapshot()
                .extensions.first { $0.bundleIdentifier == bundleIdentifier && $0.identity != nil }
        }
        guard let identity = found?.identity else {
            let diagnosis = try reporting { () throws(AppexError) in
                try ExtensionDiscovery(hostBundleAt: hostOptions.host, environment: environment).diagnose(
                    bundleIdentifier: bundleIdentifier
                )
            }
            throw fail(AppexError(.refused, diagnosis.description))
        }
        let process = try reporting { () throws(AppexError) in
            try AppExtensionProcess(
                configuration: .init(identity: identity, hostBundlePath: hostOptions.host, environment: environment)
            )
        }
        do {
            let reply = try await process.call(bytes, timeout: .milliseconds(Int(timeout * 1000)))
            print(String(decoding: reply, as: UTF8.self))
        } catch {
            throw await failed(error, process: process, environment: environment)
        }
        if hold, let pid = process.processIdentifier {
            // Written straight to the descriptor: seen at once by whoever reads a pipe.
            FileHandle.standardOutput.write(Data("extension pid \(pid)\n".utf8))
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
        process.invalidate()
    }

    /// The message: the argument, or the file's bytes (standard input's for `-`).
    func messageBytes() throws -> [UInt8] {
        switch (message, messageFile) {
        case (let message?, nil):
            return Array(message.utf8)
        case (nil, let file?):
            let handle = file == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: file)
            guard let handle else {
                throw fail(AppexError(.notFound, "cannot read the message file \(file)", context: .init(path: file)))
            }
            do {
                return Array(try handle.readToEnd() ?? Data())
            } catch {
                throw fail(
                    AppexError(
                        .fileSystem,
                        "cannot read the message from \(file)",
                        context: .init(path: file),
                        underlyingError: error
                    )
                )
            }
        case (nil, nil):
            throw fail(
                AppexError(
                    .invalidValue,
                    "no message: give it as an argument, or --message-file FILE (- for standard input)"
                )
            )
        case (_?, _?):
            throw fail(AppexError(.invalidValue, "two messages: give the argument or --message-file, not both"))
        }
    }
}
