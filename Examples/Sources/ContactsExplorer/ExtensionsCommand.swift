import AppexCore
import AppexHost
import AppexWidgetHost
import ArgumentParser
import ContactsKit
import ContactsTranslation
import Foundation

/// The owner's settings page for the app's extensions (seed 004): its translators, its own and
/// other teams', and the widgets it ships.
struct Extensions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, enable and disable the app's extensions, as its settings page does.",
        subcommands: [ListExtensions.self, EnableExtension.self, DisableExtension.self],
        defaultSubcommand: ListExtensions.self
    )
}

/// One extension as the settings page lists it.
struct ExtensionRow {
    var bundleIdentifier: String
    var name: String
    var state: DiscoveredExtension.State
    /// What it extends: a translate point or the widgets.
    var role: String
    var origin: DiscoveredExtension.Origin
    var team: String

    init(_ found: DiscoveredExtension, role: String) {
        bundleIdentifier = found.bundleIdentifier ?? "?"
        name = found.localizedName
        state = found.state
        self.role = role
        origin = found.origin
        team = found.team?.description ?? "unsigned"
    }
}

extension App {
    /// The app's extensions: those of its translate point (inside the app and on
    /// `APPEX_EXTENSIONS_PATH`), and the widgets inside the app as the system's widget host sees them.
    func extensionRows() throws -> [ExtensionRow] {
        let snapshot = try ExtensionDiscovery(hostBundleAt: bundlePath, environment: environment).snapshot()
        let points = Set(snapshot.extensionPoints.map(\.description))
        var rows = snapshot.extensions.filter { $0.extensionPoint.map(points.contains) ?? false }.map {
            ExtensionRow($0, role: "translator")
        }
        // Compared with links resolved on both sides (the apps path may go through one).
        let inside = URL(fileURLWithPath: bundlePath).resolvingSymlinksInPath().path + "/"
        rows += try widgetHost().extensions().filter {
            URL(fileURLWithPath: $0.path).resolvingSymlinksInPath().path.hasPrefix(inside)
        }.map {
            ExtensionRow($0, role: "widget")
        }
        return rows
    }

    /// The system's widget host, as the app's processes see it.
    func widgetHost() throws -> WidgetHost {
        try WidgetHost(configuration: WidgetHost.Configuration(environment: environment))
    }

    /// Enables or disables the extension `bundleIdentifier`: a widget the app ships through the
    /// widget host, a translator through the app's own approvals.
    func setEnabled(_ enabled: Bool, bundleIdentifier: String) throws {
        guard let row = try extensionRows().first(where: { $0.bundleIdentifier == bundleIdentifier }) else {
            let known = try extensionRows().map(\.bundleIdentifier).joined(separator: ", ")
            throw ContactsError(
                .notFound,
                "ContactsExplorer has no extension \(bundleIdentifier) (it has: \(known.isEmpty ? "none" : known))"
            )
        }
        if row.role == "widget" {
            try widgetHost().setEnabled(enabled, bundleIdentifier: bundleIdentifier)
        } else {
            try ExtensionDiscovery(hostBundleAt: bundlePath, environment: environment)
                .setEnabled(enabled, bundleIdentifier: bundleIdentifier)
        }
    }
}

struct ListExtensions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Each extension: its state, identifier, name, role, where it comes from and its team."
    )

    func run() async throws {
        try await reporting {
            let rows = try App.launched().extensionRows()
            if rows.isEmpty { print("no extensions") }
            for row in rows {
                let origin = row.origin == .searchPath ? "another developer" : "ships with the app"
                print(
                    "\(row.state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(row.bundleIdentifier)\t\(TerminalText.safe(row.name))\t\(row.role), \(origin), team \(row.team)"
                )
            }
        }
    }
}

struct EnableExtension: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Approve and enable an extension (another developer's is off until you do)."
    )
    @Argument(help: "The extension's bundle identifier.") var bundleIdentifier: String

    func run() async throws {
        try await setEnabled(true, bundleIdentifier)
    }
}

struct DisableExtension: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable",
        abstract: "Disable an extension: the app stops offering it (a widget leaves the widget host)."
    )
    @Argument(help: "The extension's bundle identifier.") var bundleIdentifier: String

    func run() async throws {
        try await setEnabled(false, bundleIdentifier)
    }
}

/// The owner's decision on `bundleIdentifier`, said on standard output.
func setEnabled(_ enabled: Bool, _ bundleIdentifier: String) async throws {
    try await reporting {
        try App.launched().setEnabled(enabled, bundleIdentifier: bundleIdentifier)
        print("\(enabled ? "enabled" : "disabled") \(bundleIdentifier)")
    }
}
