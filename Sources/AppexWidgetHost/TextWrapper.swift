/// Breaks styled characters into lines of at most `width` cells, for the terminal renderer.
///
/// Lines break at spaces; the spaces at a break are dropped, and so are those at the end of the
/// text. A word wider than a line is broken where the line ends; a character wider than the
/// whole line (a wide character in a one-cell line) is dropped.
struct TextWrapper {
    let width: Int
    /// Where the text's long clusters are kept.
    let long: LongGraphemes
    private var lines: [[Cell]] = [[]]
    private var word: [Cell] = []
    private var spaces: [Cell] = []

    init(width: Int, long: LongGraphemes) {
        self.width = max(0, width)
        self.long = long
    }

    /// Adds the next character of the text.
    mutating func add(_ character: Character, style: CellStyle) {
        if character == " " {
            flushWord()
            spaces.append(Cell(" ", style: style))
        } else {
            Block.append(character, style: style, long: long, to: &word)
        }
    }

    /// The lines; at least one, which may be empty.
    mutating func finish() -> [[Cell]] {
        flushWord()
        return lines
    }

    private mutating func flushWord() {
        guard !word.isEmpty else { return }
        defer {
            word.removeAll(keepingCapacity: true)
            spaces.removeAll(keepingCapacity: true)
        }
        let lineWidth = lines[lines.count - 1].count
        if lineWidth + spaces.count + word.count <= width {
            lines[lines.count - 1] += spaces
            lines[lines.count - 1] += word
            return
        }
        if lineWidth > 0 { lines.append([]) }
        var index = 0
        while index < word.count {
            let size = index + 1 < word.count && word[index + 1].isContinuation ? 2 : 1
            if size > width {
                index += size
                continue
            }
            if lines[lines.count - 1].count + size > width { lines.append([]) }
            lines[lines.count - 1] += word[index..<(index + size)]
            index += size
        }
    }
}
