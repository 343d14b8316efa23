/// What the host asks of a translator in the session form (seed 001's XPC session style):
/// `makeSession().send(TranslationRequest(text:), expecting: Translation.self)`. Every
/// translator of the point answers it.
public struct TranslationRequest: Codable, Sendable, Equatable {
    /// The text to translate (a contact's note).
    public var text: String

    /// A request to translate `text`.
    public init(text: String) { self.text = text }
}

/// A translation, in either form.
public struct Translation: Codable, Sendable, Equatable {
    /// The translated text.
    public var text: String
    /// The language it is in (a BCP 47 tag: `fr`, `de`).
    public var language: String
    /// The translator's name, as the user sees it.
    public var translator: String

    /// A translation of `text` into `language` by `translator`.
    public init(text: String, language: String, translator: String) {
        self.text = text
        self.language = language
        self.translator = translator
    }
}
