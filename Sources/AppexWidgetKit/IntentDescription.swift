/// What an intent does, in a sentence, as App Intents' `IntentDescription`; written as a
/// string literal too. Kept, and not shown yet: the "Edit widget" form and `appex widgets
/// configure` show the widget's own `.description(_:)`.
public struct IntentDescription: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The sentence.
    public var text: LocalizedStringResource
    /// The category the intent is listed under; `nil` for none.
    public var categoryName: LocalizedStringResource?
    /// Words a search finds the intent by.
    public var searchKeywords: [LocalizedStringResource]

    /// A description saying `text`.
    public init(
        _ text: LocalizedStringResource,
        categoryName: LocalizedStringResource? = nil,
        searchKeywords: [LocalizedStringResource] = []
    ) {
        self.text = text
        self.categoryName = categoryName
        self.searchKeywords = searchKeywords
    }

    /// A description saying `value`.
    public init(stringLiteral value: String) { self.init(LocalizedStringResource(value)) }
}
