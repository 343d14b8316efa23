internal import AppexWidgetKit

/// Lays a view tree out in terminal cells, for ``TerminalRenderer``.
///
/// Each node is laid out into a ``Block`` no wider than the width it is offered:
///
/// - a `VStack` puts its children in rows, aligned across the widest (or across the whole width
///   when a child, such as a `Divider`, is flexible); its `Spacer`s share the rows left over
///   when the stack is offered a height, and take none otherwise;
/// - an `HStack` puts its children side by side: each gets its natural width when they all fit,
///   and `Spacer`s and flexible children share what is left; when they do not fit, the width is
///   shared out narrowest first, and text wraps in what it gets;
/// - a `ZStack` draws its children on top of each other, aligned; a later child's blank cells let
///   the earlier ones show through;
/// - text wraps on spaces (a word longer than the line is broken), and `lineLimit` ends the last
///   line kept with "…".
///
/// Points become cells at 8 points a column and 20 points a row (for frames and spacing); padding
/// takes a column per 16 points, and rows only in tall families (see ``padsVertically``). Nothing
/// is laid out below ``maxRows`` rows, and nodes nested deeper than ``maxDepth`` are not drawn:
/// a widget cannot make the host do unbounded work.
struct TerminalLayout {
    /// The rows the content may take; what is below them is cut (the block is marked clipped).
    let maxRows: Int
    /// Whether vertical padding takes rows: only where a widget has rows to spare.
    let padsVertically: Bool
    /// Formats the dates in texts.
    let dates: DateText
    /// Where the drawing's long clusters are kept.
    let long: LongGraphemes

    /// How deep a tree is drawn.
    static let maxDepth = ViewNode.drawnDepth

    /// `node` laid out at most `width` columns wide. `height`, when given, is the height offered to
    /// flexible content (spacers in columns, frames with an infinite `maxHeight`).
    func block(_ node: ViewNode, width: Int, height: Int?, style: TextStyle, depth: Int) -> Block {
        guard depth < Self.maxDepth, width > 0 else { return .empty }
        switch node {
        case .empty, .spacer:
            return .empty
        case .group(let children):
            return vertical(children, alignment: .center, spacing: nil, width: width, height: height, style, depth)
        case .text(let runs):
            return text(runs, width: width, style: style)
        case .image(let source):
            return text([TextRun(content: .verbatim(SymbolGlyphs.text(for: source)))], width: width, style: style)
        case .label(let title, let icon):
            let iconRuns = icon.map { [TextRun(content: .verbatim(SymbolGlyphs.text(for: $0) + " "))] } ?? []
            return text(iconRuns + title, width: width, style: style)
        case .stack(.vertical, let alignment, let spacing, let children):
            return vertical(
                children,
                alignment: alignment.horizontal,
                spacing: spacing,
                width: width,
                height: height,
                style,
                depth
            )
        case .stack(.horizontal, let alignment, let spacing, let children):
            return horizontal(
                children,
                alignment: alignment.vertical,
                spacing: spacing,
                width: width,
                height: height,
                style,
                depth
            )
        case .stack(.depth, let alignment, _, let children):
            return overlaid(children, alignment: alignment, width: width, height: height, style, depth)
        case .divider:
            return Block(rows: [Block.rule("─", count: width, style: CellStyle(dim: true))])
        case .styled(let inner, let content):
            return block(content, width: width, height: height, style: inner.inheriting(from: style), depth: depth + 1)
        case .link(_, let content), .widgetURL(_, let content), .background(_, let content):
            return block(content, width: width, height: height, style: style, depth: depth + 1)
        case .padding(let insets, let content):
            return padded(content, insets: insets, width: width, height: height, style, depth)
        case .frame(let spec, let content):
            return framed(content, spec: spec, width: width, height: height, style, depth)
        case .control(let control, let label):
            let drawn = ViewNode.terminalForm(of: control, label: label)
            return block(drawn, width: width, height: height, style: style, depth: depth + 1)
        case .sceneControl(let control, let label):
            let drawn = ViewNode.terminalForm(of: control, label: label)
            return block(drawn, width: width, height: height, style: style, depth: depth + 1)
        case .shape(let shape):
            return outlined(shape, width: width, height: height, style: style)
        }
    }

    /// A stroked shape drawn as a box of its area, with round corners unless it is a rectangle,
    /// in the stroke's colour; a filled shape or a path is blank (a terminal draws no fills).
    private func outlined(_ shape: ShapeNode, width: Int, height: Int?, style: TextStyle) -> Block {
        let rows = min(height ?? 1, maxRows)
        guard case .fill = shape.drawing else {
            let corners: [Unicode.Scalar]
            switch shape.outline {
            case .path: return Block(width: width, height: rows)
            case .rectangle: corners = ["┌", "┐", "└", "┘"]
            case .roundedRectangle, .circle, .ellipse, .capsule: corners = ["╭", "╮", "╰", "╯"]
            }
            var inherited = style
            if shape.paint != .hierarchical(0) { inherited.foreground = shape.paint }
            let cell = TerminalStyles.cellStyle(for: inherited)
            guard width >= 2, rows >= 2 else { return Block(rows: [Block.rule("─", count: width, style: cell)]) }
            func edge(_ left: Unicode.Scalar, _ fill: Unicode.Scalar, _ right: Unicode.Scalar) -> [Cell] {
                [Cell(left, style: cell)] + Block.rule(fill, count: width - 2, style: cell) + [Cell(right, style: cell)]
            }
            let middle = Array(repeating: edge("│", " ", "│"), count: rows - 2)
            return Block(rows: [edge(corners[0], "─", corners[1])] + middle + [edge(corners[2], "─", corners[3])])
        }
        return Block(width: width, height: height == nil ? 0 : rows)
    }

    // MARK: - Stacks

    private func vertical(
        _ children: [ViewNode],
        alignment: NodeAlignment.Horizontal,
        spacing: Double?,
        width: Int,
        height: Int?,
        _ style: TextStyle,
        _ depth: Int
    ) -> Block {
        let items = ViewNode.flattened(children)
        let gap = spacing.map(Self.rows) ?? 0
        // Fixed children first: what they leave of `height` is shared by the spacers and the
        // flexible children, each laid out once (laying a flexible child out twice, to measure it
        // and then to grow it, would take time exponential in the depth of nested stacks).
        var blocks = [Block?](repeating: nil, count: items.count)
        var flexible: [Int] = []
        var used = gap * max(0, items.count - 1)
        for (index, child) in items.enumerated() {
            if case .spacer(let minLength) = child {
                let minimum = min(maxRows, minLength.map(Self.rows) ?? 0)
                blocks[index] = Block(width: 0, height: minimum)
                used += minimum
                flexible.append(index)
            } else if child.isFlexibleHeight() {
                flexible.append(index)
            } else if used <= maxRows {
                let laidOut = block(child, width: width, height: nil, style: style, depth: depth + 1)
                blocks[index] = laidOut
                used += laidOut.height
            }
        }
        let remaining = height.map { max(0, $0 - used) }
        for (order, index) in flexible.enumerated() {
            let share = remaining.map { $0 / flexible.count + (order < $0 % flexible.count ? 1 : 0) }
            if case .spacer = items[index] {
                blocks[index] = Block(width: 0, height: (blocks[index]?.height ?? 0) + (share ?? 0))
            } else {
                blocks[index] = block(items[index], width: width, height: share, style: style, depth: depth + 1)
            }
        }
        // Children below the last row are not laid out at all.
        let cut = blocks.contains { $0 == nil }
        let laidOut = blocks.compactMap { $0 }
        let stackWidth =
            items.contains { $0.isFlexibleWidth() } ? width : min(width, laidOut.map(\.width).max() ?? 0)
        let placement = HorizontalPlacement(alignment)
        var result = Block(width: stackWidth)
        for (index, child) in laidOut.enumerated() {
            if index > 0 && gap > 0 { result.append(Block(width: stackWidth, height: gap), horizontal: placement) }
            result.append(
                child.placed(width: stackWidth, height: child.height, horizontal: placement, vertical: .top),
                horizontal: placement
            )
            if result.height > maxRows { break }
        }
        result.clipped = result.clipped || cut
        result.clip(toHeight: maxRows)
        return result
    }

    private func horizontal(
        _ children: [ViewNode],
        alignment: NodeAlignment.Vertical,
        spacing: Double?,
        width: Int,
        height: Int?,
        _ style: TextStyle,
        _ depth: Int
    ) -> Block {
        let items = ViewNode.flattened(children)
        guard !items.isEmpty else { return .empty }
        let wantedGap = spacing.map { $0 > 0 ? max(1, Self.columns($0)) : 0 } ?? 1
        let gap = wantedGap * (items.count - 1) <= width ? wantedGap : 0
        var budget = max(0, width - gap * (items.count - 1))
        // What each child takes at least (spacers, dividers) and would like (the rest).
        var widths = [Int](repeating: 0, count: items.count)
        var ideals: [(index: Int, width: Int)] = []  // by index
        var growing: [Int] = []
        for (index, child) in items.enumerated() {
            switch child {
            case .spacer(let minLength):
                widths[index] = min(budget, minLength.map(Self.columns) ?? 0)
                budget -= widths[index]
                growing.append(index)
            case .divider:
                widths[index] = min(budget, 1)
                budget -= widths[index]
            default:
                ideals.append((index, idealWidth(child, style: style, depth: depth + 1)))
                if child.isFlexibleWidth() { growing.append(index) }
            }
        }
        let wanted = ideals.reduce(0) { $0 + $1.width }
        if wanted <= budget {
            for (index, ideal) in ideals { widths[index] = ideal }
            let remaining = budget - wanted
            for (order, index) in growing.enumerated() {
                widths[index] += remaining / growing.count + (order < remaining % growing.count ? 1 : 0)
            }
        } else {
            // Fixed frames and images first, as they are; then the rest, narrowest first, each
            // taking no more than an equal share of what is left.
            var shrinkable: [(index: Int, width: Int)] = []
            for (index, ideal) in ideals {
                guard isRigidWidth(items[index]) else {
                    shrinkable.append((index, ideal))
                    continue
                }
                widths[index] = min(ideal, budget)
                budget -= widths[index]
            }
            var left = shrinkable.count
            for (index, ideal) in shrinkable.sorted(by: { ($0.width, $0.index) < ($1.width, $1.index) }) {
                widths[index] = min(ideal, budget / left)
                budget -= widths[index]
                left -= 1
            }
        }
        var blocks: [Block] = []
        for (index, child) in items.enumerated() {
            blocks.append(block(child, width: widths[index], height: height, style: style, depth: depth + 1))
        }
        let rowCount = max(1, blocks.map(\.height).max() ?? 0)
        var result = Block(width: widths.reduce(0, +) + gap * (items.count - 1), height: rowCount)
        var column = 0
        let placement = VerticalPlacement(alignment)
        for (index, child) in items.enumerated() {
            var drawn = blocks[index]
            if case .divider = child, widths[index] > 0 {
                drawn = Block(
                    rows: Array(repeating: Block.rule("│", count: 1, style: CellStyle(dim: true)), count: rowCount)
                )
            }
            if drawn.width <= widths[index] && drawn.height <= rowCount {
                // Fits its slot: drawn straight into the (still blank) slot, as placing it in a
                // blank block of the slot's size and drawing that would leave it.
                result.draw(drawn, row: placement.offset(of: drawn.height, in: rowCount), column: column)
            } else {
                result.draw(
                    drawn.placed(width: widths[index], height: rowCount, horizontal: .leading, vertical: placement),
                    row: 0,
                    column: column
                )
            }
            column += widths[index] + gap
        }
        return result
    }

    private func overlaid(
        _ children: [ViewNode],
        alignment: NodeAlignment,
        width: Int,
        height: Int?,
        _ style: TextStyle,
        _ depth: Int
    ) -> Block {
        let items = ViewNode.flattened(children)
        let blocks = items.map { block($0, width: width, height: height, style: style, depth: depth + 1) }
        let stackWidth =
            items.contains { $0.isFlexibleWidth() } ? width : blocks.map(\.width).max() ?? 0
        let stackHeight = blocks.map(\.height).max() ?? 0
        var result = Block(width: stackWidth, height: stackHeight)
        let horizontal = HorizontalPlacement(alignment.horizontal)
        let vertical = VerticalPlacement(alignment.vertical)
        for child in blocks {
            result.draw(
                child,
                row: vertical.offset(of: child.height, in: stackHeight),
                column: horizontal.offset(of: child.width, in: stackWidth),
                transparent: true
            )
        }
        return result
    }

    // MARK: - Modifiers

    private func padded(
        _ content: ViewNode,
        insets: AppexWidgetKit.NodeInsets,
        width: Int,
        height: Int?,
        _ style: TextStyle,
        _ depth: Int
    ) -> Block {
        let leading = Self.paddingColumns(insets.leading)
        let trailing = Self.paddingColumns(insets.trailing)
        let top = padsVertically ? Self.paddingRows(insets.top) : 0
        let bottom = padsVertically ? Self.paddingRows(insets.bottom) : 0
        let inner = block(
            content,
            width: max(0, width - leading - trailing),
            height: height.map { max(0, $0 - top - bottom) },
            style: style,
            depth: depth + 1
        )
        var result = Block(width: min(width, inner.width + leading + trailing), height: inner.height + top + bottom)
        result.draw(inner, row: top, column: leading)
        result.clip(toHeight: maxRows)
        return result
    }

    private func framed(
        _ content: ViewNode,
        spec: FrameSpec,
        width: Int,
        height: Int?,
        _ style: TextStyle,
        _ depth: Int
    ) -> Block {
        let fixedWidth = spec.width.flatMap { $0.isFinite ? min(width, Self.columns($0)) : nil }
        let fillsWidth = spec.width == .infinity || (spec.width == nil && spec.maxWidth == .infinity)
        let maxWidth = spec.maxWidth.flatMap { $0.isFinite ? Self.columns($0) : nil }
        let targetWidth = fixedWidth ?? (fillsWidth ? width : nil)
        let fixedHeight = spec.height.flatMap { $0.isFinite ? min(maxRows, Self.rows($0)) : nil }
        let fillsHeight = spec.height == .infinity || (spec.height == nil && spec.maxHeight == .infinity)
        let targetHeight = fixedHeight ?? (fillsHeight ? height : nil)
        let inner = block(
            content,
            width: targetWidth ?? min(width, maxWidth ?? width),
            height: targetHeight ?? height,
            style: style,
            depth: depth + 1
        )
        return inner.placed(
            width: targetWidth ?? inner.width,
            height: targetHeight ?? inner.height,
            horizontal: HorizontalPlacement(spec.alignment.horizontal),
            vertical: VerticalPlacement(spec.alignment.vertical)
        )
    }

    // MARK: - Text

    private func text(_ runs: [TextRun], width: Int, style: TextStyle) -> Block {
        var wrapper = TextWrapper(width: width, long: long)
        for run in runs {
            let runStyle = run.style.inheriting(from: style)
            let cellStyle = TerminalStyles.cellStyle(for: runStyle)
            for character in dates.string(for: run.content).replacingControlCharacters {
                wrapper.add(character, style: cellStyle)
            }
        }
        var lines = wrapper.finish()
        if let limit = style.lineLimit, lines.count > max(1, limit) {
            lines.removeLast(lines.count - max(1, limit))
            lines[lines.count - 1] = Self.endingWithEllipsis(lines[lines.count - 1], width: width)
        }
        var result = Block(rows: lines)
        result.clip(toHeight: maxRows)
        return result
    }

    /// `line` with "…" at its end, cut to fit `width`.
    static func endingWithEllipsis(_ line: [Cell], width: Int) -> [Cell] {
        guard width > 0 else { return [] }
        var line = line
        while let last = line.last, last.isBlank { line.removeLast() }
        let style = line.last(where: { !$0.isContinuation })?.style ?? .plain
        while line.count + 1 > width, let last = line.popLast() {
            if last.isContinuation { line.removeLast() }
        }
        return line + [Cell("…", style: style)]
    }

    // MARK: - Sizes

    /// The width `node` takes when it is offered all it wants: the widest line of its text,
    /// without wrapping.
    private func idealWidth(_ node: ViewNode, style: TextStyle, depth: Int) -> Int {
        guard depth < Self.maxDepth else { return 0 }
        let limit = 10_000
        switch node {
        case .empty, .divider:
            return 0
        case .spacer(let minLength):
            return minLength.map(Self.columns) ?? 0
        case .text(let runs):
            return min(
                limit,
                runs.reduce(0) { $0 + displayWidth(of: dates.string(for: $1.content).replacingControlCharacters) }
            )
        case .image(let source):
            return displayWidth(of: SymbolGlyphs.text(for: source).replacingControlCharacters)
        case .label(let title, let icon):
            let titleWidth = idealWidth(.text(title), style: style, depth: depth)
            return min(
                limit,
                titleWidth
                    + (icon.map { displayWidth(of: SymbolGlyphs.text(for: $0).replacingControlCharacters) + 1 } ?? 0)
            )
        case .group(let children), .stack(.vertical, _, _, let children), .stack(.depth, _, _, let children):
            return ViewNode.flattened(children).map { idealWidth($0, style: style, depth: depth + 1) }.max() ?? 0
        case .stack(.horizontal, _, let spacing, let children):
            let items = ViewNode.flattened(children)
            let gap = spacing.map { $0 > 0 ? max(1, Self.columns($0)) : 0 } ?? 1
            let sum = items.reduce(0) { min(limit, $0 + idealWidth($1, style: style, depth: depth + 1)) }
            return min(limit, sum + gap * max(0, items.count - 1))
        case .styled(_, let content), .link(_, let content), .widgetURL(_, let content), .background(_, let content):
            return idealWidth(content, style: style, depth: depth + 1)
        case .padding(let insets, let content):
            return min(
                limit,
                idealWidth(content, style: style, depth: depth + 1) + Self.paddingColumns(insets.leading)
                    + Self.paddingColumns(insets.trailing)
            )
        case .frame(let spec, let content):
            if let width = spec.width, width.isFinite { return Self.columns(width) }
            let inner = idealWidth(content, style: style, depth: depth + 1)
            return spec.maxWidth.flatMap { $0.isFinite ? min(inner, Self.columns($0)) : nil } ?? inner
        case .control(let control, let label):
            return idealWidth(ViewNode.terminalForm(of: control, label: label), style: style, depth: depth + 1)
        case .sceneControl(let control, let label):
            return idealWidth(ViewNode.terminalForm(of: control, label: label), style: style, depth: depth + 1)
        case .shape:
            return 0
        }
    }

    /// Whether `node` keeps its width in a row too narrow for everything: images, and frames of
    /// a fixed width.
    private func isRigidWidth(_ node: ViewNode) -> Bool {
        switch node {
        case .image: true
        case .frame(let spec, _): spec.width?.isFinite == true
        case .styled(_, let content), .link(_, let content), .widgetURL(_, let content), .background(_, let content):
            isRigidWidth(content)
        default: false
        }
    }

    /// Columns for a frame's width or a spacing: 8 points a column, rounded.
    static func columns(_ points: Double) -> Int { cells(points, per: 8, rounded: .toNearestOrAwayFromZero) }
    /// Rows for a frame's height or a spacing: 20 points a row, rounded.
    static func rows(_ points: Double) -> Int { cells(points, per: 20, rounded: .toNearestOrAwayFromZero) }
    /// Columns of padding: one per whole 16 points.
    static func paddingColumns(_ points: Double) -> Int { cells(points, per: 16, rounded: .down) }
    /// Rows of padding: one per whole 16 points.
    static func paddingRows(_ points: Double) -> Int { cells(points, per: 16, rounded: .down) }

    /// `points` in cells of `per` points, between 0 and 1,000: a widget's numbers are not trusted
    /// to be finite, positive or small.
    private static func cells(_ points: Double, per: Double, rounded rule: FloatingPointRoundingRule) -> Int {
        guard points.isFinite, points > 0 else { return 0 }
        return Int(min(1_000, (points / per).rounded(rule)))
    }
}

extension HorizontalPlacement {
    init(_ alignment: NodeAlignment.Horizontal) {
        switch alignment {
        case .leading: self = .leading
        case .center: self = .center
        case .trailing: self = .trailing
        }
    }
}

extension VerticalPlacement {
    init(_ alignment: NodeAlignment.Vertical) {
        switch alignment {
        case .top: self = .top
        case .center: self = .center
        case .bottom: self = .bottom
        }
    }
}
