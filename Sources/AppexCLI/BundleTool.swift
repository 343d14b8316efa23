import AppexSystem
import AppexCore
import ArgumentParser
import Foundation

struct MakeBundle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Make an .appex bundle from an extension executable; its Info.plist comes from the binding in code.",
        discussion: """
        The executable is run once with --print-binding (an AppExtension prints the extension point \
        it binds to and exits); nobody types the Info.plist. With --key the bundle is signed.
        """)

    @Option(help: ArgumentHelp("The extension executable (an AppExtension @main).", valueName: "PATH"))
    var executable: String

    @Option(help: ArgumentHelp("Where to write the bundle; must end in .appex.", valueName: "X.appex"))
    var output: String

    @Option(help: ArgumentHelp("CFBundleIdentifier (default: the point's host id, a dot, the executable's name in lower case).", valueName: "ID"))
    var identifier: String?

    @Option(help: ArgumentHelp("CFBundleName (default: the executable's name).", valueName: "NAME"))
    var name: String?

    @Option(help: ArgumentHelp("CFBundleVersion.", valueName: "VERSION"))
    var version = "1"

    @Option(help: ArgumentHelp("CFBundleShortVersionString.", valueName: "VERSION"))
    var shortVersion = "1.0"

    @Option(help: ArgumentHelp("An entitlements plist to ship as Entitlements.plist.", valueName: "FILE"))
    var entitlements: String?

    @Option(help: ArgumentHelp("A team key: sign the bundle with it.", valueName: "FILE"))
    var key: String?

    @Flag(help: "Replace an existing bundle at --output.")
    var force = false

    func run() throws {
        let fileManager = FileManager.default
        let outputPath = AppexBundle.normalized(output)
        guard AppexBundle.kind(ofPath: outputPath) == .appExtension else {
            throw fail(AppexError(.refused, "--output \(output) must name a bundle ending in .appex"))
        }
        if fileManager.fileExists(atPath: outputPath) {
            guard force else { throw fail(AppexError(.refused, "\(outputPath) already exists (use --force to replace it)", context: AppexError.Context(path: outputPath))) }
            do { try fileManager.removeItem(atPath: outputPath) } catch {
                throw fail(AppexError(.fileSystem, "cannot remove \(outputPath)", context: AppexError.Context(path: outputPath), underlyingError: error))
            }
        }
        let point = try binding()
        let executableName = URL(fileURLWithPath: executable).lastPathComponent
        let bundleIdentifier = identifier ?? "\(point.hostBundleIdentifier).\(executableName.lowercased())"
        guard BundleInfo.isValidBundleIdentifier(bundleIdentifier) else {
            throw fail(AppexError(.refused, "\"\(bundleIdentifier)\" is not a reverse-DNS bundle identifier; pass --identifier"))
        }
        var entitlementsData: Data?
        if let entitlements {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: entitlements)) } catch {
                throw fail(AppexError(.fileSystem, "cannot read the entitlements file \(entitlements)", context: AppexError.Context(path: entitlements), underlyingError: error))
            }
            let parsed = Entitlements(data: Array(data), file: entitlements)
            if !parsed.problems.isEmpty {
                throw fail(AppexError(.invalidBundle, "the entitlements file \(entitlements) has problems", context: AppexError.Context(path: entitlements), problems: parsed.problems))
            }
            entitlementsData = data
        }

        // Build beside the destination, then rename into place: a watcher never sees half a bundle.
        let staging = outputPath + ".partial-\(ProcessControl.processIdentifier)"
        try? fileManager.removeItem(atPath: staging)
        do {
            try fileManager.createDirectory(atPath: staging, withIntermediateDirectories: true)
            try fileManager.copyItem(atPath: executable, toPath: staging + "/" + executableName)
            let info: [String: PropertyListValue] = [
                BundleInfo.Key.bundleIdentifier: .string(bundleIdentifier),
                BundleInfo.Key.executable: .string(executableName),
                BundleInfo.Key.name: .string(name ?? executableName),
                BundleInfo.Key.version: .string(version),
                BundleInfo.Key.shortVersion: .string(shortVersion),
                "CFBundlePackageType": .string("XPC!"),
                BundleInfo.Key.extensionAttributes: .dictionary([BundleInfo.Key.extensionPointIdentifier: .string(point.description)]),
            ]
            try PropertyListFormat.binary.encode(info).write(to: URL(fileURLWithPath: staging + "/Info.plist"))
            if let entitlementsData {
                try entitlementsData.write(to: URL(fileURLWithPath: staging + "/Entitlements.plist"))
            }
            if let key {
                let signingKey = try reporting { () throws(AppexError) in try SigningKey(contentsOf: key) }
                try reporting { () throws(AppexError) in _ = try AppexBundle.sign(at: staging, with: signingKey) }
            }
            try fileManager.moveItem(atPath: staging, toPath: outputPath)
        } catch let error as ExitCode {
            try? fileManager.removeItem(atPath: staging)
            throw error  // reported already
        } catch {
            try? fileManager.removeItem(atPath: staging)
            throw fail(AppexError(.fileSystem, "cannot make \(outputPath)", context: AppexError.Context(path: outputPath), underlyingError: error))
        }
        print("made \(outputPath): \(bundleIdentifier) binds to \(point)\(key == nil ? " (unsigned)" : ", signed")")
    }

    /// Runs the executable with `--print-binding` and parses what it prints.
    private func binding() throws -> ExtensionPointIdentifier {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--print-binding"]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            throw fail(AppexError(.launchFailed, "cannot run \(executable) to read its binding", context: AppexError.Context(path: executable), underlyingError: error))
        }
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { ProcessControl.signal(Signal.kill, toProcess: pid) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 10, execute: watchdog)
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        watchdog.cancel()
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard process.terminationStatus == 0, let point = ExtensionPointIdentifier(line) else {
            throw fail(AppexError(.refused, "\(executable) did not print its binding (`--print-binding` exited \(process.terminationStatus), printed \(line.debugDescription)); is it an AppExtension @main?",
                                  context: AppexError.Context(path: executable)))
        }
        return point
    }
}
