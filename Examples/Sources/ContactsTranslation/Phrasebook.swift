/// A small phrasebook: whole sentences it knows, else word by word, keeping words it does not
/// know and the text's punctuation. The examples' translators use it; a real one would call a
/// translation model here (what the examples show is how the text gets to it and back).
public struct Phrasebook: Sendable {
    /// The language it translates into.
    public let language: String
    private let sentences: [String: String]
    private let words: [String: String]

    /// A phrasebook into `language` from English `sentences` and `words` (keys in lower case).
    public init(language: String, sentences: [String: String], words: [String: String]) {
        self.language = language
        self.sentences = sentences
        self.words = words
    }

    /// `text` in the phrasebook's language.
    public func translate(_ text: String) -> String {
        if let sentence = sentences[text.lowercased()] { return sentence }
        var result = ""
        var word = ""
        func flush() {
            guard !word.isEmpty else { return }
            if let translated = words[word.lowercased()] {
                let capitalized = word.first?.isUppercase == true
                result += capitalized ? translated.prefix(1).uppercased() + translated.dropFirst() : translated
            } else {
                result += word
            }
            word = ""
        }
        for character in text {
            if character.isLetter || character == "'" {
                word.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}
