public import AppexWidgetKit
import Foundation

/// Draws a widget as a box of UTF-8 text for a terminal:
///
/// ```
/// ╭─ Contacts ───────────╮
/// │  👥 Contacts         │
/// │  ──────────────────  │
/// │  Ada Lovelace        │
/// │  Grace Brewster…     │
/// │  Katherine Johnson   │
/// │ ⚠ stale: no answer … │
/// ╰──────────────────────╯
/// ```
///
/// The widget's display name is in the top border; its status line, when it has one, is the last
/// row inside the box, after "⚠ ". A frame without a view shows "No content yet". Each family
/// has a size in cells (``cellSize(of:)``); the content is laid out inside the border and one
/// blank column each side, centred, and what does not fit is cut, the last row ending in "…".
///
/// Everything the widget sent is drawn with its control characters (and bidirectional overrides)
/// replaced by U+FFFD: a widget cannot write escape sequences to the terminal. With ``colors``
/// off the output has no escape sequences at all; with it on, only the renderer's own SGR
/// sequences (`ESC [ digits ; … m`).
public struct TerminalRenderer: Sendable {
    /// The box's width in cells, border included, instead of the family's; at least 8.
    public var width: Int?
    /// Whether to style text with ANSI SGR sequences: bold, italic, dim and the eight standard
    /// colours.
    public var colors: Bool
    /// The time zone dates in texts are drawn in.
    public var timeZone: TimeZone
    /// The locale of `.time` and `.date` texts (`en_US_POSIX` unless given).
    public var locale: Locale

    /// A renderer drawing boxes `width` cells wide (the family's width when `nil`), with or
    /// without colours.
    public init(
        width: Int? = nil,
        colors: Bool = false,
        timeZone: TimeZone = .current,
        locale: Locale = Locale(identifier: "en_US_POSIX")
    ) {
        self.width = width
        self.colors = colors
        self.timeZone = timeZone
        self.locale = locale
    }

    /// A box's size in terminal cells, border included.
    public struct CellSize: Sendable, Hashable {
        /// Columns, both borders included.
        public var columns: Int
        /// Rows, both borders and the status line included.
        public var rows: Int

        /// A size of `columns` × `rows`.
        public init(columns: Int, rows: Int) {
            self.columns = columns
            self.rows = rows
        }
    }

    /// The box a family is drawn in, border included:
    ///
    /// | Family | Cells |
    /// |---|---|
    /// | `systemSmall` | 24 × 8 |
    /// | `systemMedium` | 48 × 8 |
    /// | `systemLarge` | 48 × 18 |
    /// | `systemExtraLarge` | 80 × 18 |
    /// | `accessoryCircular` | 12 × 4 |
    /// | `accessoryRectangular` | 30 × 5 (three lines) |
    /// | `accessoryInline` | 40 × 3 (one line) |
    ///
    /// The content gets the columns less four (borders and margins) and the rows less two, less
    /// one more for a status line; a family with a single content row (`accessoryInline`) grows
    /// by a row for its status line instead. Padding takes a column per 16 points; it takes rows
    /// (one per 16 points) only in `systemLarge` and `systemExtraLarge`, which have rows to spare.
    public static func cellSize(of family: WidgetFamily) -> CellSize {
        switch family {
        case .systemSmall: CellSize(columns: 24, rows: 8)
        case .systemMedium: CellSize(columns: 48, rows: 8)
        case .systemLarge: CellSize(columns: 48, rows: 18)
        case .systemExtraLarge: CellSize(columns: 80, rows: 18)
        case .accessoryCircular: CellSize(columns: 12, rows: 4)
        case .accessoryRectangular: CellSize(columns: 30, rows: 5)
        case .accessoryInline: CellSize(columns: 40, rows: 3)
        }
    }

    /// The smallest width drawn, whatever ``width`` says.
    static let minimumWidth = 8

    /// `frame` drawn as a box: its lines joined by newlines, without a final newline. Every line
    /// takes the same number of cells.
    public func render(_ frame: WidgetFrame) -> String {
        let size = Self.cellSize(of: frame.family)
        let boxWidth = max(Self.minimumWidth, min(width ?? size.columns, 1_000))
        let innerWidth = boxWidth - 4
        let contentRows = max(1, size.rows - 2 - (frame.status == nil ? 0 : 1))
        let long = LongGraphemes()
        let layout = TerminalLayout(
            maxRows: contentRows,
            padsVertically: contentRows >= 10,
            dates: DateText(timeZone: timeZone, locale: locale, now: frame.now),
            long: long
        )
        var content: Block
        if let tree = frame.tree {
            content = layout.block(tree.root, width: innerWidth, height: contentRows, style: TextStyle(), depth: 0)
        } else {
            let placeholder = ViewNode.text([TextRun(content: .verbatim("No content yet"))])
            content = layout.block(
                .styled(TextStyle(foreground: .hierarchical(1)), placeholder),
                width: innerWidth,
                height: contentRows,
                style: TextStyle(),
                depth: 0
            )
        }
        content.clip(toHeight: contentRows)
        var body = content.placed(width: innerWidth, height: contentRows, horizontal: .center, vertical: .center)
        if content.clipped { body.markLastRowCut() }

        // Each line written as it comes; the sides are plain, so writing a line's parts one after
        // the other gives the same bytes as writing the joined line.
        var output: [UInt8] = []
        output.reserveCapacity((body.height + 3) * (boxWidth * 3 + 1))
        write(topBorder(title: frame.displayName, width: boxWidth, long: long), to: &output, long: long)
        let side = Block.rule("│", count: 1) + [.blank]
        let otherSide = [.blank] + Block.rule("│", count: 1)
        for row in body.rows {
            output.append(UInt8(ascii: "\n"))
            write(side, to: &output, long: long)
            write(row, to: &output, long: long)
            write(otherSide, to: &output, long: long)
        }
        if let status = frame.status {
            var statusLine = Block.line(
                "⚠ " + status.replacingControlCharacters,
                style: CellStyle(color: 33),
                long: long
            )
            statusLine = Self.fitted(statusLine, width: innerWidth)
            output.append(UInt8(ascii: "\n"))
            write(side, to: &output, long: long)
            write(statusLine, to: &output, long: long)
            write(Array(repeating: .blank, count: innerWidth - statusLine.count), to: &output, long: long)
            write(otherSide, to: &output, long: long)
        }
        output.append(UInt8(ascii: "\n"))
        write(
            Block.rule("╰", count: 1) + Block.rule("─", count: boxWidth - 2) + Block.rule("╯", count: 1),
            to: &output,
            long: long
        )
        return String(decoding: output, as: UTF8.self)
    }

    /// `╭─ Title ───╮`, the title cut with "…" to fit.
    private func topBorder(title: String, width: Int, long: LongGraphemes) -> [Cell] {
        let name = Self.fitted(
            Block.line(title.replacingControlCharacters, style: CellStyle(bold: true), long: long),
            width: width - 6
        )
        guard !name.isEmpty else {
            return Block.rule("╭", count: 1) + Block.rule("─", count: width - 2) + Block.rule("╮", count: 1)
        }
        return Block.rule("╭", count: 1) + Block.rule("─", count: 1) + [.blank] + name + [.blank]
            + Block.rule("─", count: width - 5 - name.count) + Block.rule("╮", count: 1)
    }

    /// `cells` cut to `width`, ending in "…" when cut.
    private static func fitted(_ cells: [Cell], width: Int) -> [Cell] {
        cells.count <= width ? cells : TerminalLayout.endingWithEllipsis(Array(cells.prefix(width)), width: width)
    }

    /// Appends one line of cells as UTF-8 text, with SGR sequences when ``colors`` is on; long
    /// clusters are read from `long`.
    private func write(_ cells: [Cell], to output: inout [UInt8], long: LongGraphemes) {
        var current = CellStyle.plain
        for cell in cells where !cell.isContinuation {
            if colors && cell.style != current {
                if current != .plain { output += CellStyle.reset.utf8 }
                output += cell.style.sequence.utf8
                current = cell.style
            }
            cell.appendUTF8(to: &output, long: long)
        }
        if colors && current != .plain { output += CellStyle.reset.utf8 }
    }
}
