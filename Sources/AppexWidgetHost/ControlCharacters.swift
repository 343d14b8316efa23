extension String {
    /// The string with every control character (C0 including tab and newline, DEL, C1) and every
    /// bidirectional embedding, override and isolate replaced by U+FFFD, so that text from a
    /// widget cannot move a terminal's cursor, start an escape sequence, ring its bell, reorder
    /// what is drawn around it, or smuggle bytes into a page.
    ///
    /// Every string a widget sends goes through this before a renderer draws it.
    var replacingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isControlCharacter) else { return self }
        var scalars = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            scalars.append(scalar.isControlCharacter ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is a C0 control (U+0000–U+001F), DEL (U+007F), a C1 control
    /// (U+0080–U+009F), or a bidirectional embedding, override (U+202A–U+202E) or isolate
    /// (U+2066–U+2069). The plain marks (U+200E, U+200F) stay: they reorder nothing beyond
    /// themselves.
    var isControlCharacter: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }
}
