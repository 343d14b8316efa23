/// Text from the server made safe for a terminal: control characters (C0, DEL, C1) and
/// bidirectional overrides and isolates become U+FFFD, so a contact's name cannot move the
/// cursor, change colours, ring the bell or reorder the line it is printed on.
public enum TerminalText {
    /// `text` with every character a terminal would act on replaced.
    public static func safe(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    let value = scalar.value
                    let control = value < 0x20 || (0x7F...0x9F).contains(value)
                    let bidi =
                        (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
                        || value == 0x200E || value == 0x200F || value == 0x061C
                    return control || bidi ? "\u{FFFD}" : scalar
                }
            )
        )
    }
}
