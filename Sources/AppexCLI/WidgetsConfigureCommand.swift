import AppexCommandCore
import AppexVocabulary
import AppexWidgetHost
import AppexWidgetKit
import ArgumentParser

struct WidgetsConfigure: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "configure",
        abstract:
            "Configure a widget, as its \"Edit widget\" form does: set its parameters, or pick one of its presets.",
        discussion: """
            With no --set, --preset or --reset, prints the widget's parameters (name, kind, options, \
            default), its presets and its configuration now. A value is typed as a person would: text, \
            a number, yes or no, a date (2026-12-24), or an option's title. The widget shows the new \
            configuration at the widget host's next refresh (`appex widgets show KIND` does one).
            """
    )

    @Argument(help: ArgumentHelp("A widget kind.", valueName: "KIND"))
    var kind: String

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp("Set a parameter (repeatable).", valueName: "NAME=VALUE")
    )
    var settings: [String] = []

    @Option(help: ArgumentHelp("Start from the preset with this description.", valueName: "DESCRIPTION"))
    var preset: String?

    @Flag(help: "Start from the defaults (forget what was set).")
    var reset = false

    @Option(
        help: ArgumentHelp("The placed widget's family (default: the widget's first).", valueName: "F")
    )
    var family: String?

    func run() async throws {
        let host = try WidgetCommands.host()
        let family = try WidgetDrawingOptions.widgetFamily(named: family)
        // The widget must be known (described) first: a refresh does that, and fetches what is due.
        let states = try await reporting { () async throws(AppexError) in try await host.refresh(family: family) }
        guard let state = try WidgetCommands.select(states, kind: kind, host: host).first else { return }
        var values: [String: String] = [:]
        for setting in settings {
            guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
                throw fail(
                    AppexError(.invalidValue, "--set \(setting): write NAME=VALUE (a parameter's name, then its value)")
                )
            }
            values[String(setting[..<equals])] = String(setting[setting.index(after: equals)...])
        }
        let descriptor = state.descriptor
        if values.isEmpty && preset == nil && !reset {
            let now = try reporting { () throws(AppexError) in try host.configuration(of: state.key) }
            print(Self.describe(descriptor, configuration: now))
            return
        }
        let now = try reporting { () throws(AppexError) in
            try host.configure(state, setting: values, preset: preset, reset: reset)
        }
        let parameters = Dictionary(descriptor.parameters.map { ($0.name, $0) }) { first, _ in first }
        let shown =
            now.isEmpty
            ? "the defaults"
            : now.sorted { $0.key < $1.key }.map { name, json in
                "\(name)=" + (parameters[name].map { Self.typed(json, for: $0) } ?? json)
            }
            .joined(separator: " ")
        print("configured \(descriptor.kind) (\(state.key.family.rawValue)): \(shown)")
    }

    /// A value (JSON text) as a person types it for `--set`: an option by its title, a date as
    /// `2026-12-24`, text without quotes.
    static func typed(_ json: String, for parameter: WidgetParameter) -> String {
        let text =
            parameter.options.first { $0.value == json }?.title ?? WidgetHost.typedText(ofJSON: json, for: parameter)
        return text.contains(" ") || text.isEmpty ? "\"\(text)\"" : text
    }

    /// What a person can set on `descriptor`'s widget, and what is set.
    static func describe(_ descriptor: WidgetDescriptor, configuration: [String: String]) -> String {
        guard descriptor.isConfigurable else { return "\(descriptor.kind) is not configurable" }
        var lines = ["\(descriptor.displayName) (\(descriptor.kind))"]
        for parameter in descriptor.parameters {
            var line = "  \(parameter.name): \(parameter.title), \(parameter.kind.rawValue)"
            if parameter.isOptional { line += ", optional" }
            if let value = configuration[parameter.name] {
                line += ", set to " + Self.typed(value, for: parameter)
            } else if let value = parameter.defaultValue {
                line += ", default " + Self.typed(value, for: parameter)
            }
            if !parameter.options.isEmpty {
                line += "; one of: " + parameter.options.map(\.title).joined(separator: ", ")
            }
            lines.append(line)
        }
        if !descriptor.recommendations.isEmpty {
            lines.append(
                "  presets: " + descriptor.recommendations.map { "\"\($0.description)\"" }.joined(separator: ", ")
            )
        }
        return lines.joined(separator: "\n")
    }
}
