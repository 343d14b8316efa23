/// Lists the values a parameter may take, as App Intents' `DynamicOptionsProvider`: the widget
/// desktop's "Edit widget" form offers them, and `appex widgets configure` checks a value
/// against them.
///
/// ```swift
/// struct HeroNames: DynamicOptionsProvider {
///     func results() async throws -> [String] { ["Spouty", "Egghead"] }
/// }
///
/// @Parameter(title: "Hero", optionsProvider: HeroNames()) var heroName: String?
/// ```
public protocol DynamicOptionsProvider: Sendable {
    /// The values' type.
    associatedtype Result: Codable & Sendable
    /// The values, now (asked when the widget host describes the widget).
    func results() async throws -> [Result]
    /// The value a new widget starts with on Apple platforms. Accepted and not asked: the widget
    /// host starts a new widget at the parameter's own default.
    func defaultResult() async -> Result?
}

extension DynamicOptionsProvider {
    /// `nil`: the parameter's own default.
    public func defaultResult() async -> Result? { nil }
}

/// Where a parameter's options come from, type-erased.
protocol ParameterOptions: Sendable {
    /// The options as JSON values and titles; empty when the provider throws.
    func options() async -> [WidgetParameter.Option]
}

/// A ``DynamicOptionsProvider``'s results as options.
struct DynamicOptions<Provider: DynamicOptionsProvider>: ParameterOptions {
    let provider: Provider

    func options() async -> [WidgetParameter.Option] {
        guard let results = try? await provider.results() else { return [] }
        return results.compactMap { result in
            guard let value = ParameterJSON.text(of: result) else { return nil }
            return WidgetParameter.Option(value: value, title: ParameterJSON.title(of: result))
        }
    }
}
