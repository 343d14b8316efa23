import AppexWidgetHost
import AppexWidgetKit
import ArgumentParser
import ContactsKit
import Foundation

struct Widgets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show this app's widgets as the system's widget host draws them now (it fetches what is due)."
    )
    @Flag(help: "Write an HTML page instead of drawing in the terminal.") var html = false
    @Option(help: ArgumentHelp("The widgets' family.", valueName: "FAMILY")) var family = "systemMedium"

    func run() async throws {
        guard let family = WidgetFamily(rawValue: family) else {
            throw ValidationError(
                "\(family) is not a widget family (\(WidgetFamily.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        try await reporting {
            let app = try App.launched()
            let host = try app.widgetHost()
            let bundle = URL(fileURLWithPath: app.bundlePath).resolvingSymlinksInPath().path
            let mine = try await host.refresh(family: family).filter { $0.app == bundle }
            guard !mine.isEmpty else {
                throw ContactsError(
                    .notFound,
                    "the widget host shows no widget of \(bundle): is its folder on the apps path (APPEX_APPS_PATH)?"
                )
            }
            // A widget the owner turned off is not drawn; the line says how to turn it on.
            for off in mine where off.discovered.state != .enabled {
                FileHandle.standardError.write(
                    Data(
                        "\(off.key.kind) is \(off.discovered.state.rawValue): `ContactsExplorer extensions enable \(off.discovered.bundleIdentifier ?? "?")`\n"
                            .utf8
                    )
                )
            }
            let frames = mine.filter { $0.discovered.state == .enabled }.map { $0.frame() }
            if html {
                print(HTMLRenderer().page(frames, title: "ContactsExplorer's widgets"))
            } else {
                let renderer = TerminalRenderer()
                for frame in frames { print(renderer.render(frame)) }
            }
        }
    }
}
