import AppexCommandCore
import AppexCore
import AppexHost
import ArgumentParser
import Foundation

/// The JSON form of one extension in `appex list --json`: its fields are a script's interface,
/// so they are added to, never renamed. `origin` is `host`, `search-path` or `app`
/// (`DiscoveredExtension.Origin`); `problems` are `FILE: MESSAGE` strings.
struct ExtensionRecord: Encodable {
    var bundleIdentifier: String?
    var name: String
    var extensionPoint: String?
    var state: String
    var origin: String
    var path: String
    var team: String?
    var problems: [String]
    var note: String?

    init(_ found: DiscoveredExtension) {
        bundleIdentifier = found.bundleIdentifier
        name = found.localizedName
        extensionPoint = found.extensionPoint
        state = found.state.rawValue
        origin = found.origin.rawValue
        path = found.path
        team = found.team?.rawValue
        problems = found.problems.map(\.description)
        note = found.note
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List a host's extensions and whether each may run.")

    @OptionGroup var hostOptions: HostOptions

    @Option(help: ArgumentHelp("Only extensions of this extension point.", valueName: "ID"))
    var point: String?

    @Flag(help: "Include invalid bundles, with their problems.")
    var all = false

    @Flag(help: "Print a JSON array.")
    var json = false

    func run() throws {
        let snapshot = try reporting { () throws(AppexError) in
            try ExtensionDiscovery(hostBundleAt: hostOptions.host).snapshot()
        }
        var extensions = snapshot.extensions
        if let point { extensions = extensions.filter { $0.extensionPoint == point } }
        if !all { extensions = extensions.filter { $0.state != .invalid } }
        if json {
            try printJSON(extensions.map(ExtensionRecord.init))
            return
        }
        if extensions.isEmpty {
            print(
                "no extensions for \(snapshot.hostBundleIdentifier)\(all ? "" : " (add --all to include invalid ones)")"
            )
            return
        }
        for found in extensions {
            let team = found.team?.rawValue ?? "-"
            print(
                "\(found.state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(found.bundleIdentifier ?? "(no bundle id)")  \(found.extensionPoint ?? "(no point)")  team \(team)  \(found.path)"
            )
            if let note = found.note { print("           \(note)") }
            for problem in found.problems { print("           - \(problem)") }
        }
    }
}

/// What `enable` and `disable` take: the host and the extension's bundle identifier.
struct DecisionArguments: ParsableArguments {
    @OptionGroup var hostOptions: HostOptions

    @Argument(help: "The extension's bundle identifier.")
    var bundleIdentifier: String

    /// Records the owner's decision and says so.
    func decide(enabled: Bool) throws {
        try reporting { () throws(AppexError) in
            try ExtensionDiscovery(hostBundleAt: hostOptions.host).setEnabled(
                enabled,
                bundleIdentifier: bundleIdentifier
            )
        }
        print("\(enabled ? "enabled" : "disabled") \(bundleIdentifier)")
    }
}

struct Enable: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Approve and enable an extension for a host.")
    @OptionGroup var arguments: DecisionArguments
    func run() throws { try arguments.decide(enabled: true) }
}

struct Disable: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Disable an extension for a host.")
    @OptionGroup var arguments: DecisionArguments
    func run() throws { try arguments.decide(enabled: false) }
}

struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Explain why an extension is or is not available to a host."
    )

    @OptionGroup var hostOptions: HostOptions

    @Argument(help: "The extension's bundle identifier.")
    var bundleIdentifier: String

    func run() throws {
        let (diagnosis, sandbox) = try reporting { () throws(AppexError) in
            let discovery = try ExtensionDiscovery(hostBundleAt: hostOptions.host)
            return (
                try discovery.diagnose(bundleIdentifier: bundleIdentifier),
                try discovery.sandboxLines(bundleIdentifier: bundleIdentifier)
            )
        }
        print(diagnosis)
        if let sandbox {
            print("sandbox (what \(bundleIdentifier) may do when launched):")
            for line in sandbox { print("  " + line) }
        }
        if !diagnosis.isAvailable { throw ExitCode.failure }
    }
}
