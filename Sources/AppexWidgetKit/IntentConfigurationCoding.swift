/// A configuration intent to and from the JSON object the widget host keeps for a placed
/// widget: parameters by name, a missing one taking the intent's default.
enum IntentConfigurationCoding {
    /// `Intent` configured by `bytes` (a JSON object; empty for the defaults).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `coding` when the object is no object, or a value does
    ///   not fit its parameter.
    static func intent<Intent: WidgetConfigurationIntent>(
        _ type: Intent.Type,
        from bytes: [UInt8]
    ) throws(AppexError) -> Intent {
        let defaults = Intent()
        if bytes.isEmpty { return defaults }
        let given: [String: JSONValue]
        do { given = try JSONDecoder().decode([String: JSONValue].self, from: Data(bytes)) } catch {
            throw AppexError(.coding, "the configuration of \(Intent.title) is not a JSON object: \(error)")
        }
        do {
            var object = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(defaults))
            for (name, value) in given { object[name] = value }
            return try JSONDecoder().decode(Intent.self, from: JSONEncoder().encode(object))
        } catch {
            throw AppexError(.coding, "the configuration of \(Intent.title) does not fit its parameters: \(error)")
        }
    }

    /// `intent`'s parameters as a JSON object's text.
    static func text(of intent: some WidgetConfigurationIntent) -> String {
        (try? JSONEncoder().encode(intent)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The parameters `Intent` declares, described from a new intent's `@Parameter` properties.
    static func parameters<Intent: WidgetConfigurationIntent>(of type: Intent.Type) async -> [WidgetParameter] {
        var parameters: [WidgetParameter] = []
        for child in Mirror(reflecting: Intent()).children {
            guard let label = child.label, label.hasPrefix("_"),
                let parameter = child.value as? any DescribableParameter
            else { continue }
            parameters.append(await parameter.describe(name: String(label.dropFirst())))
        }
        return parameters
    }
}

/// A parameter that can say what it is (``IntentParameter``).
protocol DescribableParameter {
    func describe(name: String) async -> WidgetParameter
}

/// The JSON text and the title of a parameter's value.
enum ParameterJSON {
    static func text(of value: some Encodable) -> String? {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func title(of value: Any) -> String {
        if let string = value as? String { return string }
        if let entry = value as? any AppEnum { return caseTitle(entry) }
        return String(describing: value)
    }

    static func caseTitle<Case: AppEnum>(_ value: Case) -> String {
        Case.caseDisplayRepresentations[value]?.title.key ?? String(describing: value.rawValue)
    }
}

/// `Optional`, to see through when describing a parameter.
protocol OptionalParameterValue {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalParameterValue {
    static var wrappedType: Any.Type { Wrapped.self }
}

extension IntentParameter: DescribableParameter {
    func describe(name: String) async -> WidgetParameter {
        let optional = Value.self as? any OptionalParameterValue.Type
        let base = optional?.wrappedType ?? Value.self
        var options = await self.options?.options() ?? []
        let kind: WidgetParameter.Kind
        if let enumeration = base as? any AppEnum.Type {
            kind = .choice
            if options.isEmpty { options = Self.cases(of: enumeration) }
        } else if !options.isEmpty {
            kind = .choice
        } else if base == String.self {
            kind = .text
        } else if base == Bool.self {
            kind = .boolean
        } else if base is any BinaryInteger.Type {
            kind = .integer
        } else if base is any BinaryFloatingPoint.Type {
            kind = .number
        } else if base == Date.self {
            kind = .date
        } else if base == URL.self {
            kind = .url
        } else {
            kind = .text
        }
        return WidgetParameter(
            name: name,
            title: title?.key ?? name,
            kind: kind,
            defaultValue: defaultValue.flatMap { ParameterJSON.text(of: $0) },
            isOptional: optional != nil,
            options: options
        )
    }

    private static func cases<Case: AppEnum>(of type: Case.Type) -> [WidgetParameter.Option] {
        Case.allCases.compactMap { value in
            ParameterJSON.text(of: value).map {
                WidgetParameter.Option(value: $0, title: ParameterJSON.caseTitle(value))
            }
        }
    }
}
