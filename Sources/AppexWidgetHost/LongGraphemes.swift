/// The grapheme clusters of one drawing too long for a ``Cell`` (more than 12 UTF-8 bytes: a
/// family emoji, a region's flag), each kept once and numbered. Made for one drawing and
/// dropped with it, so what a widget sends cannot make it grow past that drawing's text.
final class LongGraphemes {
    private var texts: [String] = []
    private var numbers: [String: Int] = [:]

    /// `character`'s number, given when first seen.
    func number(of character: Character) -> Int {
        let text = String(character)
        if let number = numbers[text] { return number }
        texts.append(text)
        numbers[text] = texts.count - 1
        return texts.count - 1
    }

    /// The cluster numbered `number`; empty for a number never given.
    func text(numbered number: Int) -> String {
        texts.indices.contains(number) ? texts[number] : ""
    }
}
