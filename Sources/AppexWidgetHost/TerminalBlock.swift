/// How a cell is drawn with ANSI colours on: attributes and one of the standard colours.
struct CellStyle: Hashable {
    var bold = false
    var italic = false
    var dim = false
    /// An SGR foreground code: 30–37, or 90 for grey.
    var color: UInt8?

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
struct Cell: Hashable {
    /// What the cell draws: a grapheme cluster; `" "` for a blank; empty for the second half of a
    /// wide character.
    var text: String
    var style: CellStyle

    static let blank = Cell(text: " ", style: .plain)
    static let continuation = Cell(text: "", style: .plain)

    var isBlank: Bool { text == " " }
    var isContinuation: Bool { text.isEmpty }
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
    /// and its second half.
    static func append(_ character: Character, style: CellStyle, to cells: inout [Cell]) {
        switch displayWidth(of: character) {
        case 0: break
        case 1: cells.append(Cell(text: String(character), style: style))
        default:
            cells.append(Cell(text: String(character), style: style))
            cells.append(.continuation)
        }
    }

    /// A row of `count` box-drawing `character`s (one cell each) in `style`: a border or a
    /// divider, without measuring each character.
    static func rule(_ character: Character, count: Int, style: CellStyle = .plain) -> [Cell] {
        Array(repeating: Cell(text: String(character), style: style), count: max(0, count))
    }

    /// One row of `text` in `style`.
    static func line(_ text: String, style: CellStyle = .plain) -> [Cell] {
        var cells: [Cell] = []
        cells.reserveCapacity(text.utf8.count)
        for character in text { append(character, style: style, to: &cells) }
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
        put([Cell(text: "…", style: style)], row: last, column: min(end, width - 1))
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
