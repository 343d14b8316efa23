import AppexCommandCore
import AppexCore
import AppexHost
import AppexWidgetHost
import ArgumentParser
import Foundation

/// `appex scene`: a UI extension's scene, opened as its host would, driven by events, drawn in
/// the terminal: an extension in any language can be tried without writing a host.
struct Scene: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a UI extension's scene as its host would, send it events, and draw it after each.",
        discussion: """
            Events, in order: tap:N (the button N), toggle:N (the switch N), text:N:TEXT (TEXT typed \
            into the field N), choose:N:M (option M of the picker N); controls are numbered as the \
            drawing numbers them, depth first from 0. Exit status 1 at the first refusal, naming it.
            """
    )

    @OptionGroup var hostOptions: HostOptions

    @Argument(help: "The extension's bundle identifier.")
    var bundleIdentifier: String

    @Argument(help: "The scene's identifier.")
    var sceneID: String

    @Option(
        name: .customLong("parameter"),
        help: ArgumentHelp("What the scene shows, NAME=VALUE; repeatable.", valueName: "NAME=VALUE")
    )
    var parameters: [String] = []

    @Option(name: .customLong("event"), help: ArgumentHelp("An event to send; repeatable.", valueName: "EVENT"))
    var events: [String] = []

    func run() async throws {
        var values: [String: String] = [:]
        for parameter in parameters {
            guard let equals = parameter.firstIndex(of: "=") else {
                throw fail(AppexError(.invalidValue, "--parameter \(parameter) is not NAME=VALUE"))
            }
            values[String(parameter[..<equals])] = String(parameter[parameter.index(after: equals)...])
        }
        let sent = try events.map { text in
            guard let event = Self.event(text) else {
                throw fail(
                    AppexError(.invalidValue, "--event \(text) is not tap:N, toggle:N, text:N:TEXT or choose:N:M")
                )
            }
            return (text, event)
        }
        let environment = AppexEnvironment.current()
        let identity = try reporting { () throws(AppexError) in
            let discovery = try ExtensionDiscovery(hostBundleAt: hostOptions.host, environment: environment)
            guard
                let found = try discovery.snapshot().extensions.first(where: { $0.bundleIdentifier == bundleIdentifier }
                ),
                let identity = found.identity
            else {
                throw AppexError(.refused, try discovery.diagnose(bundleIdentifier: bundleIdentifier).description)
            }
            return identity
        }
        let process = try reporting { () throws(AppexError) in
            try AppExtensionProcess(
                configuration: .init(identity: identity, hostBundlePath: hostOptions.host, environment: environment)
            )
        }
        defer { process.invalidate() }
        let renderer = TerminalRenderer()
        do {
            let scene = try await ExtensionScene(process: process, sceneID: sceneID, parameters: values)
            print(renderer.render(scene.frame(title: sceneID)))
            for (text, event) in sent {
                try await scene.send(event)
                print("after \(text):")
                print(renderer.render(scene.frame(title: sceneID)))
            }
            await scene.close()
        } catch {
            throw await failed(error, process: process, environment: environment)
        }
    }

    /// `tap:N`, `toggle:N`, `text:N:TEXT` or `choose:N:M` as an event.
    static func event(_ text: String) -> ExtensionScene.Event? {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, let control = Int(parts[1]), control >= 0 else { return nil }
        switch (parts[0], parts.count) {
        case ("tap", 2): return .tap(control: control)
        case ("toggle", 2): return .toggle(control: control)
        case ("text", 3): return .text(control: control, parts[2])
        case ("choose", 3): return Int(parts[2]).map { .choose(control: control, option: $0) }
        default: return nil
        }
    }
}
