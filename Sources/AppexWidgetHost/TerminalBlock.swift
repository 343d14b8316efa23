/// How a cell is drawn with ANSI colours on: attributes and one of the standard colours. Two
/// bytes, so that a ``Cell`` is plain data.
struct CellStyle: Hashable {
    private var flags: UInt8 = 0
    /// The SGR foreground code; 0 for none.
    private var code: UInt8 = 0

    init(bold: Bool = false, italic: Bool = false, dim: Bool = false, color: UInt8? = nil) {
        self.bold = bold
        self.italic = italic
        self.dim = dim
        self.color = color
    }

    var bold: Bool {
        get { flags & 1 != 0 }
        set { flags = newValue ? flags | 1 : flags & ~1 }
    }
    var italic: Bool {
        get { flags & 2 != 0 }
        set { flags = newValue ? flags | 2 : flags & ~2 }
    }
    var dim: Bool {
        get { flags & 4 != 0 }
        set { flags = newValue ? flags | 4 : flags & ~4 }
    }
    /// An SGR foreground code: 30–37, or 90 for grey.
    var color: UInt8? {
        get { code == 0 ? nil : code }
        set { code = newValue ?? 0 }
    }

    static let plain = CellStyle()

    /// The SGR sequence that sets this style from a reset state; empty for ``plain``.
    var sequence: String {
        var codes: [String] = []
        if bold { codes.append("1") }
        if dim { codes.append("2") }
        if italic { codes.append("3") }
        if let color { codes.append(String(color)) }
        return codes.isEmpty ? "" : "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    /// The sequence that ends any style.
    static let reset = "\u{1B}[0m"
}

/// One terminal cell: a character one or two cells wide, the second half of a wide one, or blank.
///
/// Plain data (16 bytes, no reference): laying a widget out copies cells by the thousand, and a
/// `String` in each made every copy a retain and a release (`widget.render.terminal` p50 59 µs
/// with strings, 40 µs as plain data). A grapheme cluster of up to 12 UTF-8
/// bytes is kept in the cell; a longer one (a family emoji, a flag of a region) once in the
/// drawing's ``LongGraphemes``, the cell holding its number there.
struct Cell: Hashable {
    /// The cluster's UTF-8 bytes, the first eight in `low` (the first byte lowest), the rest in
    /// `high`; or, for a long cluster, its number in the drawing's ``LongGraphemes``, in `low`.
    private var low: UInt64
    private var high: UInt32
    /// The cluster's length in bytes (1–12); 0 for the second half of a wide character;
    /// ``longLength`` for a long cluster.
    private var length: UInt8
    var style: CellStyle

    private static let longLength: UInt8 = 0xFF
    private static let inlineCapacity = 12

    /// A cell drawing `scalar`: what the renderer draws itself (spaces, borders, "…").
    init(_ scalar: Unicode.Scalar, style: CellStyle) {
        var bytes: UInt64 = 0
        var count: UInt8 = 0
        for byte in scalar.utf8 {
            bytes |= UInt64(byte) << (8 * UInt64(count))
            count += 1
        }
        (low, high, length, self.style) = (bytes, 0, count, style)
    }

    /// A cell drawing `character`, kept in `long` when it has more than 12 bytes.
    init(_ character: Character, style: CellStyle, long: LongGraphemes) {
        let utf8 = character.utf8
        if utf8.count > Self.inlineCapacity {
            (low, high, length, self.style) = (UInt64(long.number(of: character)), 0, Self.longLength, style)
            return
        }
        var (low, high): (UInt64, UInt32) = (0, 0)
        var count = 0
        for byte in utf8 {
            if count < 8 {
                low |= UInt64(byte) << (8 * UInt64(count))
            } else {
                high |= UInt32(byte) << (8 * UInt32(count - 8))
            }
            count += 1
        }
        (self.low, self.high, length, self.style) = (low, high, UInt8(count), style)
    }

    private init(continuation: ()) {
        (low, high, length, style) = (0, 0, 0, .plain)
    }

    static let blank = Cell(" ", style: .plain)
    static let continuation = Cell(continuation: ())

    var isBlank: Bool { length == 1 && low == 0x20 }
    var isContinuation: Bool { length == 0 }

    /// Appends what the cell draws, as UTF-8, to `output`: nothing for a second half.
    func appendUTF8(to output: inout [UInt8], long: LongGraphemes) {
        if length == Self.longLength {
            output += long.text(numbered: Int(low)).utf8
            return
        }
        for index in 0..<Int(length) {
            output.append(
                index < 8
                    ? UInt8(truncatingIfNeeded: low >> (8 * UInt64(index)))
                    : UInt8(truncatingIfNeeded: high >> (8 * UInt32(index - 8)))
            )
        }
    }
}

/// A rectangle of cells: what every view is laid out into. Every row has exactly `width` cells.
struct Block {
    private(set) var width: Int
    private(set) var rows: [[Cell]]
    /// Whether rows were cut at the bottom because the content is taller than the widget.
    var clipped = false

    init(width: Int, height: Int = 0) {
        self.width = max(0, width)
        rows = Array(repeating: Array(repeating: .blank, count: self.width), count: max(0, height))
    }

    /// A block of the given rows, each padded with blanks to the widest.
    init(rows: [[Cell]]) {
        let width = rows.map(\.count).max() ?? 0
        self.width = width
        self.rows = rows.map { row in
            guard row.count < width else { return row }
            var padded = row
            padded.append(contentsOf: repeatElement(.blank, count: width - row.count))
            return padded
        }
    }

    static let empty = Block(width: 0)

    var height: Int { rows.count }

    /// Appends the cells of `character` in `style` to `cells`: none, one, or a wide character
    /// and its second half. A long cluster is kept in `long`.
    static func append(_ character: Character, style: CellStyle, long: LongGraphemes, to cells: inout [Cell]) {
        switch displayWidth(of: character) {
        case 0: break
        case 1: cells.append(Cell(character, style: style, long: long))
        default:
            cells.append(Cell(character, style: style, long: long))
            cells.append(.continuation)
        }
    }

    /// A row of `count` box-drawing `scalar`s (one cell each) in `style`: a border or a
    /// divider, without measuring each character.
    static func rule(_ scalar: Unicode.Scalar, count: Int, style: CellStyle = .plain) -> [Cell] {
        Array(repeating: Cell(scalar, style: style), count: max(0, count))
    }

    /// One row of `text` in `style`; its long clusters kept in `long`.
    static func line(_ text: String, style: CellStyle = .plain, long: LongGraphemes) -> [Cell] {
        var cells: [Cell] = []
        cells.reserveCapacity(text.utf8.count)
        for character in text { append(character, style: style, long: long, to: &cells) }
        return cells
    }

    // MARK: - Drawing

    /// Puts a character's cells (one, or a wide character and its second half) at `column` of
    /// `row`, blanking what is left of any wide character they cut. Nothing is drawn unless every
    /// cell fits.
    mutating func put(_ cells: [Cell], row: Int, column: Int) {
        let end = column + cells.count
        guard rows.indices.contains(row), column >= 0, end <= width, !cells.isEmpty else { return }
        if rows[row][column].isContinuation, column > 0 { rows[row][column - 1] = .blank }
        if end < width, rows[row][end].isContinuation { rows[row][end] = .blank }
        rows[row].replaceSubrange(column..<end, with: cells)
    }

    /// As ``put(_:row:column:)`` with `[cell]`, or `[cell, .continuation]` when `wide`, without
    /// making the array: ``draw(_:row:column:transparent:)`` puts every cell of a block.
    private mutating func put(_ cell: Cell, wide: Bool, row: Int, column: Int) {
        let end = column + (wide ? 2 : 1)
        guard rows.indices.contains(row), column >= 0, end <= width else { return }
        if rows[row][column].isContinuation, column > 0 { rows[row][column - 1] = .blank }
        if end < width, rows[row][end].isContinuation { rows[row][end] = .blank }
        rows[row][column] = cell
        if wide { rows[row][column + 1] = .continuation }
    }

    /// Draws `other` with its top-left cell at (`row`, `column`). When `transparent`, blank cells
    /// of `other` leave what is underneath. Cells outside this block are dropped, and so is a wide
    /// character whose halves would not both fit.
    mutating func draw(_ other: Block, row: Int, column: Int, transparent: Bool = false) {
        if !transparent, row >= 0, row + other.height <= height, column >= 0, column + other.width <= width,
            other.rows.allSatisfy(Self.pairsEveryContinuation)
        {
            // The whole of `other` fits: each row is copied as it is (what putting its cells one
            // by one would leave), and only wide characters cut at its two edges are blanked.
            let end = column + other.width
            for (y, cells) in other.rows.enumerated() where !cells.isEmpty {
                if rows[row + y][column].isContinuation, column > 0 { rows[row + y][column - 1] = .blank }
                if end < width, rows[row + y][end].isContinuation { rows[row + y][end] = .blank }
                rows[row + y].replaceSubrange(column..<end, with: cells)
            }
            clipped = clipped || other.clipped
            return
        }
        for (y, cells) in other.rows.enumerated() {
            for (x, cell) in cells.enumerated() where !cell.isContinuation {
                if transparent && cell.isBlank { continue }
                let isWide = x + 1 < cells.count && cells[x + 1].isContinuation
                put(cell, wide: isWide, row: row + y, column: column + x)
            }
        }
        clipped = clipped || other.clipped
    }

    /// Whether every second half in `cells` follows the first half of a wide character, as
    /// putting characters leaves them: then drawing the row cell by cell copies it unchanged.
    private static func pairsEveryContinuation(_ cells: [Cell]) -> Bool {
        var previousIsWideStart = false
        for (index, cell) in cells.enumerated() {
            if cell.isContinuation {
                guard previousIsWideStart else { return false }
                previousIsWideStart = false
            } else {
                previousIsWideStart = index + 1 < cells.count && cells[index + 1].isContinuation
            }
        }
        return true
    }

    /// This block in a larger one of `width` × `height`, placed by `alignment`; a smaller size
    /// crops.
    func placed(
        width newWidth: Int,
        height newHeight: Int,
        horizontal: HorizontalPlacement,
        vertical: VerticalPlacement
    )
        -> Block
    {
        if newWidth == width && newHeight == height { return self }
        var result = Block(width: newWidth, height: newHeight)
        let column = horizontal.offset(of: width, in: newWidth)
        let row = vertical.offset(of: height, in: newHeight)
        result.draw(self, row: row, column: column)
        result.clipped = clipped || (newHeight < height && row + height > newHeight)
        return result
    }

    /// Keeps at most `limit` rows; when rows are cut, the block is marked clipped.
    mutating func clip(toHeight limit: Int) {
        guard rows.count > limit else { return }
        rows.removeLast(rows.count - max(0, limit))
        clipped = true
    }

    /// Ends the last row with "…": after its last drawn cell, or over it when the row is full.
    mutating func markLastRowCut() {
        guard let last = rows.indices.last, width > 0 else { return }
        let style = rows[last].last(where: { !$0.isBlank && !$0.isContinuation })?.style ?? .plain
        let end = (rows[last].lastIndex(where: { !$0.isBlank }) ?? -1) + 1
        put([Cell("…", style: style)], row: last, column: min(end, width - 1))
    }

    /// Appends the rows of `other` below, both padded to the wider.
    mutating func append(_ other: Block, horizontal: HorizontalPlacement) {
        let newWidth = max(width, other.width)
        if newWidth > width { self = placed(width: newWidth, height: height, horizontal: horizontal, vertical: .top) }
        let below = other.placed(width: newWidth, height: other.height, horizontal: horizontal, vertical: .top)
        rows += below.rows
        clipped = clipped || other.clipped
    }
}

/// Where a narrower block goes across a wider space.
enum HorizontalPlacement {
    case leading, center, trailing

    func offset(of size: Int, in space: Int) -> Int {
        switch self {
        case .leading: 0
        case .center: (space - size) / 2
        case .trailing: space - size
        }
    }
}

/// Where a shorter block goes down a taller space.
enum VerticalPlacement {
    case top, center, bottom

    func offset(of size: Int, in space: Int) -> Int {
        switch self {
        case .top: 0
        case .center: (space - size) / 2
        case .bottom: space - size
        }
    }
}
