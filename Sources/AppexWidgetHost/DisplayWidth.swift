/// The number of terminal cells `character` takes: 2 for East Asian wide and full-width
/// characters and for emoji drawn as emoji, 0 for a lone combining mark or format character,
/// 1 for everything else.
///
/// A `Character` is a grapheme cluster, so a base letter and its combining marks, a flag or an
/// emoji with its modifiers and joiners count once.
func displayWidth(of character: Character) -> Int {
    // ASCII (CR LF included) is neither wide, emoji nor zero-width: skip the property lookups.
    if character.isASCII { return 1 }
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    // Box drawing and block elements alone (the renderer's own borders and dividers): one cell.
    if (0x2500...0x259F).contains(first.value), scalars.index(after: scalars.startIndex) == scalars.endIndex {
        return 1
    }
    if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
    if first.properties.isEmoji && scalars.contains("\u{FE0F}") { return 2 }
    if first.isEastAsianWide { return 2 }
    if scalars.allSatisfy({ $0.isZeroWidth }) { return 0 }
    return 1
}

/// The number of terminal cells `text` takes: the sum of its characters' widths.
func displayWidth(of text: some StringProtocol) -> Int {
    // ASCII: a cell per character, and a character per byte but for CR LF pairs.
    var pairs = 0
    var previous: UInt8 = 0
    for byte in text.utf8 {
        if byte >= 0x80 { return text.reduce(0) { $0 + displayWidth(of: $1) } }
        if byte == 0x0A && previous == 0x0D { pairs += 1 }
        previous = byte
    }
    return text.utf8.count - pairs
}

extension Unicode.Scalar {
    /// Whether the scalar is East Asian Wide or Fullwidth: CJK ideographs, kana, Hangul
    /// syllables, full-width forms. A table of the blocks, not the full Unicode data; emoji are
    /// found by their presentation property instead.
    var isEastAsianWide: Bool {
        switch value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
            0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF,
            0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F900...0x1F9FF,
            0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }

    /// Whether the scalar takes no cell of its own: combining marks, format characters (zero
    /// width joiner and space, bidirectional marks) and Hangul medial and final jamo.
    var isZeroWidth: Bool {
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: true
        default: (0x1160...0x11FF).contains(value)
        }
    }
}
