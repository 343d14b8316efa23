import AppexCore
import AppexVocabulary
import AppexWidgetKit
import Foundation

extension WidgetHost {
    /// The configuration of the placed widget `key`: its parameters' values as JSON text, by
    /// name (`"😃"`, `3`, `true`); a parameter not in it has its default.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `storage`.
    public func configuration(of key: WidgetKey) throws(AppexError) -> [String: String] {
        guard let bytes = try store.configuration(of: key) else { return [:] }
        return Self.values(of: bytes)
    }

    /// Configures the placed widget of `state`, as its person does in the widget desktop's "Edit
    /// widget" form or with `appex widgets configure`: `values` (a parameter's name and its value as
    /// a person types it: `😃`, `3`, `yes`, an option's title) change those parameters; a `preset`
    /// (one of the widget's recommendations, by its description) replaces the whole configuration
    /// first; `reset` goes back to the defaults first. Then the widget's app is asked for a reload,
    /// so that the next refresh fetches a timeline for the new configuration.
    ///
    /// Every value is checked before anything is stored: a name the widget does not have, a value
    /// of the wrong kind, or one not among a parameter's options changes nothing.
    ///
    /// - Returns: the configuration now, as ``configuration(of:)`` gives it.
    /// - Throws: ``/AppexVocabulary/AppexError`` `refused` (the widget is not configurable, or not
    ///   enabled), `invalidValue` (what was wrong, and what the widget takes), `notFound` (no such
    ///   preset), `storage`.
    @discardableResult
    public func configure(
        _ state: WidgetState,
        setting values: [String: String] = [:],
        preset: String? = nil,
        reset: Bool = false,
        at date: Date? = nil
    ) throws(AppexError) -> [String: String] {
        let descriptor = state.descriptor
        let context = AppexError.Context(bundleIdentifier: state.key.extensionIdentifier, widgetKind: state.key.kind)
        guard descriptor.isConfigurable else {
            throw AppexError(
                .refused,
                "widget \(descriptor.kind) is not configurable: it is a StaticConfiguration (configurable widgets use AppIntentConfiguration or IntentConfiguration)",
                context: context
            )
        }
        guard state.discovered.state == .enabled else {
            throw AppexError(
                .refused,
                "widget \(descriptor.kind) is \(state.discovered.state.rawValue): enable it first",
                context: context
            )
        }
        var configuration = reset ? [:] : try self.configuration(of: state.key)
        if let preset {
            let presets = descriptor.recommendations
            guard let chosen = presets.first(where: { $0.description == preset }) else {
                let names = presets.map { "\"\($0.description)\"" }.joined(separator: ", ")
                throw AppexError(
                    .notFound,
                    "widget \(descriptor.kind) has no preset \"\(preset)\" (its presets: \(names.isEmpty ? "none" : names))",
                    context: context
                )
            }
            configuration = Self.values(of: Array(chosen.configuration.utf8))
        }
        for (name, text) in values.sorted(by: { $0.key < $1.key }) {
            guard let parameter = descriptor.parameters.first(where: { $0.name == name }) else {
                let names = descriptor.parameters.map(\.name).joined(separator: ", ")
                throw AppexError(
                    .invalidValue,
                    "widget \(descriptor.kind) has no parameter \(name) (its parameters: \(names.isEmpty ? "none; pick a preset" : names))",
                    context: context
                )
            }
            configuration[name] = try Self.value(text, for: parameter, of: descriptor.kind, context: context)
        }
        let object = JSONValue.object(configuration.compactMapValues { try? JSONValue(json: $0) }).json
        try store.setConfiguration(configuration.isEmpty ? nil : Array(object.utf8), of: state.key)
        let date = date ?? self.configuration.environment.clock.now
        try WidgetCenter.writeReloadRequest(
            WidgetReloadRequest(
                kind: state.key.kind,
                app: state.app,
                requestedAt: date.timeIntervalSince1970,
                byPerson: true
            ),
            home: self.configuration.environment.home
        )
        self.configuration.logger.info(
            "widget configured",
            metadata: ["widget": "\(state.key)", "parameters": "\(configuration.keys.sorted())"]
        )
        return configuration
    }

    /// The JSON text of `text`, as a person typed it, for `parameter`.
    static func value(
        _ text: String,
        for parameter: WidgetParameter,
        of kind: String,
        context: AppexError.Context
    ) throws(AppexError) -> String {
        func refuse(_ takes: String) -> AppexError {
            AppexError(
                .invalidValue,
                "widget \(kind): \(parameter.name) (\(parameter.title)) takes \(takes), not \"\(text)\"",
                context: context
            )
        }
        if text.isEmpty && parameter.isOptional { return "null" }
        if !parameter.options.isEmpty {
            if let option = parameter.options.first(where: { $0.title == text || unquoted($0.value) == text }) {
                return option.value
            }
            throw refuse("one of " + parameter.options.map { "\"\($0.title)\"" }.joined(separator: ", "))
        }
        switch parameter.kind {
        case .text, .choice:
            return quoted(text)
        case .integer:
            guard let number = Int(text) else { throw refuse("a whole number") }
            return String(number)
        case .number:
            guard let number = Double(text), number.isFinite else { throw refuse("a number") }
            return String(number)
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "on", "1": return "true"
            case "false", "no", "off", "0": return "false"
            default: throw refuse("yes or no (true, false, on, off, 1, 0)")
            }
        case .date:
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = text.count == 10 ? [.withFullDate] : [.withInternetDateTime]
            guard let date = formatter.date(from: text) else {
                throw refuse("a date (2026-12-24, or 2026-12-24T18:00:00Z)")
            }
            return String(date.timeIntervalSinceReferenceDate)
        case .url:
            guard let url = URL(string: text), url.scheme != nil else { throw refuse("a URL with its scheme") }
            return quoted(url.absoluteString)
        }
    }

    /// What a person types for the value `json` (JSON text) of `parameter`: the characters of a
    /// string, a number, `true`, a date as `2026-12-24`; empty for `null`. ``configure(_:setting:preset:reset:at:)``
    /// takes it back.
    package static func typedText(ofJSON json: String, for parameter: WidgetParameter) -> String {
        if json == "null" { return "" }
        if parameter.kind == .date, parameter.options.isEmpty, let seconds = Double(json) {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            return formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
        }
        return unquoted(json)
    }

    /// A JSON object's members as JSON text, by name.
    static func values(of bytes: [UInt8]) -> [String: String] {
        guard case .object(let members)? = try? JSONValue(json: String(decoding: bytes, as: UTF8.self)) else {
            return [:]
        }
        return members.mapValues(\.json)
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String { JSONValue.string(text).json }

    /// A JSON string's characters (other JSON as it is).
    static func unquoted(_ json: String) -> String {
        guard case .string(let text)? = try? JSONValue(json: json) else { return json }
        return text
    }
}
