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
    ) async throws(AppexError) -> Intent {
        let defaults = Intent()
        if bytes.isEmpty { return try await complete(defaults) }
        let given: [String: JSONValue]
        do { given = try JSONDecoder().decode([String: JSONValue].self, from: Data(bytes)) } catch {
            throw AppexError(.coding, "the configuration of \(Intent.title) is not a JSON object: \(error)")
        }
        let intent: Intent
        do {
            var object = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(defaults))
            for (name, value) in given { object[name] = value }
            intent = try JSONDecoder().decode(Intent.self, from: JSONEncoder().encode(object))
        } catch {
            throw AppexError(
                .coding,
                "the configuration of \(Intent.title) does not fit its parameters (did a new build change them?): \(error); `appex widgets configure KIND --reset` goes back to the defaults"
            )
        }
        return try await complete(intent)
    }

    /// `intent`, completed in one pass over its parameters: an entity parameter looked up by its
    /// query (a kept identifier becomes the entity, or nothing when the query no longer finds
    /// it; an unset one the query's default), then every required parameter checked to have a
    /// value: a provider that read one never set would end its process (as on Apple platforms,
    /// where the system asks the person first).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidValue` when an entity query throws, or a
    ///   required parameter has no value, naming the parameter and how to set it.
    static func complete<Intent: WidgetConfigurationIntent>(_ intent: Intent) async throws(AppexError) -> Intent {
        for child in Mirror(reflecting: intent).children {
            guard let label = child.label, label.hasPrefix("_"),
                let parameter = child.value as? any DescribableParameter
            else { continue }
            let name = String(label.dropFirst())
            do { try await parameter.findEntity() } catch {
                throw AppexError(
                    .invalidValue,
                    "\(Intent.title)'s parameter \(name): its entity query failed: \(error)"
                )
            }
            if parameter.isUnset {
                throw AppexError(
                    .invalidValue,
                    "\(Intent.title)'s parameter \(name) (\(parameter.displayTitle ?? name)) has no value and no default: set it with `appex widgets configure KIND --set \(name)=VALUE` or the widget desktop's Edit widget"
                )
            }
        }
        return intent
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
    /// Required, and neither set nor given a default.
    var isUnset: Bool { get }
    /// Its title, when it has one.
    var displayTitle: String? { get }
    /// Looks its entity up, when it holds an ``AppEntity``: by the identifier read, or the
    /// query's default when none was.
    func findEntity() async throws
}

/// The JSON text and the title of a parameter's value.
enum ParameterJSON {
    static func text(of value: some Encodable) -> String? {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func title(of value: Any) -> String {
        if let string = value as? String { return string }
        if let entity = value as? any AppEntity { return entity.displayRepresentation.title.key }
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
    var isUnset: Bool { value.withLock { $0 } == nil && !(Value.self is any OptionalParameterValue.Type) }

    func findEntity() async throws {
        guard let type = ParameterValues.entityType(of: Value.self) else { return }
        if let pending = pendingEntity.withLock({ $0 }) {
            let found = try await EntityParameterSupport.entity(type, identifiedBy: pending)
            value.withLock { $0 = found.flatMap { $0 as? Value } }
            pendingEntity.withLock { $0 = nil }
        } else if value.withLock({ $0 }) == nil, let initial = await EntityParameterSupport.defaultEntity(of: type) {
            value.withLock { $0 = initial as? Value }
        }
    }

    var displayTitle: String? { title?.key }

    func describe(name: String) async -> WidgetParameter {
        let optional = Value.self as? any OptionalParameterValue.Type
        let base = optional?.wrappedType ?? Value.self
        var options = await self.options?.options() ?? []
        var defaultText = defaultValue.flatMap { Self.text(of: $0) }
        let kind: WidgetParameter.Kind
        if let entityType = base as? any AppEntity.Type {
            kind = .choice
            if options.isEmpty { options = await EntityParameterSupport.options(of: entityType) }
            if defaultText == nil, let initial = await EntityParameterSupport.defaultEntity(of: entityType) {
                defaultText = Self.text(of: initial)
            }
        } else if let enumeration = base as? any AppEnum.Type {
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
            defaultValue: defaultText,
            isOptional: optional != nil,
            options: options
        )
    }

    /// A value's JSON text: an entity's identifier's, or its `Codable` form's.
    private static func text(of value: Any) -> String? {
        if let entity = value as? any AppEntity { return EntityParameterSupport.identifierText(of: entity) }
        return (value as? any Encodable).flatMap { ParameterJSON.text(of: $0) }
    }

    private static func cases<Case: AppEnum>(of type: Case.Type) -> [WidgetParameter.Option] {
        Case.allCases.compactMap { value in
            ParameterJSON.text(of: value).map {
                WidgetParameter.Option(value: $0, title: ParameterJSON.caseTitle(value))
            }
        }
    }
}
