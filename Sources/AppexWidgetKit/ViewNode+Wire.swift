internal import AppexCoding

// A view tree's binary form (``ViewTree`` version 2): each node a case byte and its fields in
// order, read back by the same schema. Written by hand rather than through `Codable` because a
// widget extension writes a tree for every entry, from a process started moments before: the
// coder's generic containers cost a new process more than the tree itself.

extension ViewNode {
    /// How deep a tree may nest: deeper ones are refused when written and when read.
    package static let maximumDepth = 128

    private enum Case: UInt8 {
        case empty, group, text, image, stack, spacer, divider, label, link, styled, padding, frame, widgetURL,
            background, control, sceneControl, shape
    }

    /// Writes the node and everything in it; `false` when it nests deeper than ``maximumDepth``.
    func write(to writer: inout WireWriter, depth: Int = 0) -> Bool {
        guard depth < Self.maximumDepth else { return false }
        func children(_ nodes: [ViewNode], _ writer: inout WireWriter) -> Bool {
            writer.write(count: nodes.count)
            for node in nodes where !node.write(to: &writer, depth: depth + 1) { return false }
            return true
        }
        switch self {
        case .empty:
            writer.write(byte: Case.empty.rawValue)
        case .group(let nodes):
            writer.write(byte: Case.group.rawValue)
            return children(nodes, &writer)
        case .text(let runs):
            writer.write(byte: Case.text.rawValue)
            TextRun.write(runs, to: &writer)
        case .image(let source):
            writer.write(byte: Case.image.rawValue)
            source.write(to: &writer)
        case .stack(let axis, let alignment, let spacing, let nodes):
            writer.write(byte: Case.stack.rawValue)
            writer.write(byte: axis.rawValue)
            alignment.write(to: &writer)
            writer.write(spacing)
            return children(nodes, &writer)
        case .spacer(let minLength):
            writer.write(byte: Case.spacer.rawValue)
            writer.write(minLength)
        case .divider:
            writer.write(byte: Case.divider.rawValue)
        case .label(let title, let icon):
            writer.write(byte: Case.label.rawValue)
            TextRun.write(title, to: &writer)
            writer.write(icon != nil)
            icon?.write(to: &writer)
        case .link(let destination, let content):
            writer.write(byte: Case.link.rawValue)
            writer.write(destination)
            return content.write(to: &writer, depth: depth + 1)
        case .styled(let style, let content):
            writer.write(byte: Case.styled.rawValue)
            style.write(to: &writer)
            return content.write(to: &writer, depth: depth + 1)
        case .padding(let insets, let content):
            writer.write(byte: Case.padding.rawValue)
            for edge in [insets.top, insets.leading, insets.bottom, insets.trailing] { writer.write(edge) }
            return content.write(to: &writer, depth: depth + 1)
        case .frame(let spec, let content):
            writer.write(byte: Case.frame.rawValue)
            for size in [spec.width, spec.height, spec.maxWidth, spec.maxHeight] { writer.write(size) }
            spec.alignment.write(to: &writer)
            return content.write(to: &writer, depth: depth + 1)
        case .widgetURL(let url, let content):
            writer.write(byte: Case.widgetURL.rawValue)
            writer.write(url)
            return content.write(to: &writer, depth: depth + 1)
        case .background(let paint, let content):
            writer.write(byte: Case.background.rawValue)
            paint.write(to: &writer)
            return content.write(to: &writer, depth: depth + 1)
        case .control(let control, let label):
            writer.write(byte: Case.control.rawValue)
            writer.write(byte: control.kind.rawValue)
            writer.write(control.type)
            writer.write(bytes: control.arguments)
            return label.write(to: &writer, depth: depth + 1)
        case .sceneControl(let control, let label):
            writer.write(byte: Case.sceneControl.rawValue)
            writer.write(Int64(control.index))
            switch control.kind {
            case .button:
                writer.write(byte: 0)
            case .toggle(let isOn):
                writer.write(byte: 1)
                writer.write(isOn)
            case .textField(let text, let prompt):
                writer.write(byte: 2)
                writer.write(text)
                writer.write(prompt)
            case .picker(let selected, let options):
                writer.write(byte: 3)
                writer.write(Int64(selected))
                writer.write(count: options.count)
                for option in options { writer.write(option) }
            }
            return label.write(to: &writer, depth: depth + 1)
        case .shape(let shape):
            writer.write(byte: Case.shape.rawValue)
            shape.write(to: &writer)
        }
        return true
    }

    /// Reads a node and everything in it.
    init(reading reader: inout WireReader, depth: Int = 0) throws(WireFormatError) {
        guard depth < Self.maximumDepth else {
            throw reader.error("the tree nests deeper than \(Self.maximumDepth) levels")
        }
        let raw = try reader.byte("a view")
        guard let kind = Case(rawValue: raw) else { throw reader.error("\(raw) is not a kind of view") }
        func children(_ reader: inout WireReader) throws(WireFormatError) -> [ViewNode] {
            let count = try reader.count("the number of children")
            var nodes: [ViewNode] = []
            nodes.reserveCapacity(count)
            for _ in 0..<count { nodes.append(try ViewNode(reading: &reader, depth: depth + 1)) }
            return nodes
        }
        switch kind {
        case .empty: self = .empty
        case .group: self = .group(try children(&reader))
        case .text: self = .text(try TextRun.read(&reader))
        case .image: self = .image(try ImageSource(reading: &reader))
        case .stack:
            let axisByte = try reader.byte("a stack's axis")
            guard let axis = StackAxis(rawValue: axisByte) else { throw reader.error("\(axisByte) is not an axis") }
            let alignment = try NodeAlignment(reading: &reader)
            let spacing = try reader.optionalDouble("a stack's spacing")
            self = .stack(axis, alignment: alignment, spacing: spacing, children: try children(&reader))
        case .spacer: self = .spacer(minLength: try reader.optionalDouble("a spacer's minimum length"))
        case .divider: self = .divider
        case .label:
            let title = try TextRun.read(&reader)
            let icon = try reader.bool("whether a label has an icon") ? try ImageSource(reading: &reader) : nil
            self = .label(title: title, icon: icon)
        case .link:
            let destination = try reader.string("a link's destination")
            self = .link(destination: destination, content: try ViewNode(reading: &reader, depth: depth + 1))
        case .styled:
            let style = try TextStyle(reading: &reader)
            self = .styled(style, try ViewNode(reading: &reader, depth: depth + 1))
        case .padding:
            let insets = NodeInsets(
                top: try reader.double("a padding's top"),
                leading: try reader.double("a padding's leading edge"),
                bottom: try reader.double("a padding's bottom"),
                trailing: try reader.double("a padding's trailing edge")
            )
            self = .padding(insets, try ViewNode(reading: &reader, depth: depth + 1))
        case .frame:
            let spec = FrameSpec(
                width: try reader.optionalDouble("a frame's width"),
                height: try reader.optionalDouble("a frame's height"),
                maxWidth: try reader.optionalDouble("a frame's maximum width"),
                maxHeight: try reader.optionalDouble("a frame's maximum height"),
                alignment: try NodeAlignment(reading: &reader)
            )
            self = .frame(spec, try ViewNode(reading: &reader, depth: depth + 1))
        case .widgetURL:
            let url = try reader.string("a widget URL")
            self = .widgetURL(url, try ViewNode(reading: &reader, depth: depth + 1))
        case .background:
            let paint = try Paint(reading: &reader)
            self = .background(paint, try ViewNode(reading: &reader, depth: depth + 1))
        case .control:
            let kindByte = try reader.byte("a control's kind")
            guard let controlKind = IntentControl.Kind(rawValue: kindByte) else {
                throw reader.error("\(kindByte) is not a kind of control")
            }
            let type = try reader.string("a control's intent type")
            let arguments = try reader.bytes("a control's intent parameters")
            let control = IntentControl(kind: controlKind, type: type, arguments: arguments)
            self = .control(control, label: try ViewNode(reading: &reader, depth: depth + 1))
        case .sceneControl:
            let index = Int(try reader.int64("a scene control's number"))
            let kind: SceneControl.Kind
            switch try reader.byte("a scene control's kind") {
            case 0: kind = .button
            case 1: kind = .toggle(isOn: try reader.bool("whether a switch is on"))
            case 2:
                kind = .textField(text: try reader.string("a text field's text"), prompt: try reader.string("a prompt"))
            case 3:
                let selected = Int(try reader.int64("a picker's selection"))
                let count = try reader.count("the number of a picker's options")
                var options: [String] = []
                for _ in 0..<count { options.append(try reader.string("a picker's option")) }
                kind = .picker(selected: selected, options: options)
            case let other: throw reader.error("\(other) is not a kind of scene control")
            }
            let control = SceneControl(index: index, kind: kind)
            self = .sceneControl(control, label: try ViewNode(reading: &reader, depth: depth + 1))
        case .shape: self = .shape(try ShapeNode(reading: &reader))
        }
    }
}

extension NodeAlignment {
    func write(to writer: inout WireWriter) {
        writer.write(byte: horizontal.rawValue)
        writer.write(byte: vertical.rawValue)
    }

    init(reading reader: inout WireReader) throws(WireFormatError) {
        let h = try reader.byte("a horizontal alignment")
        let v = try reader.byte("a vertical alignment")
        guard let horizontal = Horizontal(rawValue: h), let vertical = Vertical(rawValue: v) else {
            throw reader.error("\(h), \(v) is not an alignment")
        }
        self.init(horizontal: horizontal, vertical: vertical)
    }
}

extension ImageSource {
    func write(to writer: inout WireWriter) {
        switch self {
        case .system(let name):
            writer.write(byte: 0)
            writer.write(name)
        case .named(let name):
            writer.write(byte: 1)
            writer.write(name)
        }
    }

    init(reading reader: inout WireReader) throws(WireFormatError) {
        switch try reader.byte("an image's source") {
        case 0: self = .system(try reader.string("a symbol's name"))
        case 1: self = .named(try reader.string("an image's name"))
        case let other: throw reader.error("\(other) is not an image source")
        }
    }
}

extension TextRun {
    static func write(_ runs: [TextRun], to writer: inout WireWriter) {
        writer.write(count: runs.count)
        for run in runs {
            switch run.content {
            case .verbatim(let text):
                writer.write(byte: 0)
                writer.write(text)
            case .date(let seconds, let style):
                writer.write(byte: 1)
                writer.write(seconds)
                writer.write(byte: style.rawValue)
            }
            run.style.write(to: &writer)
        }
    }

    static func read(_ reader: inout WireReader) throws(WireFormatError) -> [TextRun] {
        let count = try reader.count("the number of text runs")
        var runs: [TextRun] = []
        runs.reserveCapacity(count)
        for _ in 0..<count {
            let content: TextContent
            switch try reader.byte("a text run") {
            case 0: content = .verbatim(try reader.string("a text"))
            case 1:
                let seconds = try reader.double("a date")
                let raw = try reader.byte("a date style")
                guard let style = DateStyleName(rawValue: raw) else { throw reader.error("\(raw) is not a date style") }
                content = .date(seconds, style)
            case let other: throw reader.error("\(other) is not a kind of text run")
            }
            runs.append(TextRun(content: content, style: try TextStyle(reading: &reader)))
        }
        return runs
    }
}

extension TextStyle {
    private enum Field: UInt8 {
        case font = 1
        case weight = 2
        case italic = 4
        case foreground = 8
        case lineLimit = 16
    }

    func write(to writer: inout WireWriter) {
        var present: UInt8 = 0
        if font != nil { present |= Field.font.rawValue }
        if weight != nil { present |= Field.weight.rawValue }
        if italic != nil { present |= Field.italic.rawValue }
        if foreground != nil { present |= Field.foreground.rawValue }
        if lineLimit != nil { present |= Field.lineLimit.rawValue }
        writer.write(byte: present)
        if let font {
            writer.write(byte: font.name.rawValue)
            writer.write(font.size)
            writer.write(byte: font.weight.map { $0.rawValue + 1 } ?? 0)
            writer.write(font.italic)
            writer.write(font.monospaced)
        }
        if let weight { writer.write(byte: weight.rawValue) }
        if let italic { writer.write(italic) }
        foreground?.write(to: &writer)
        if let lineLimit { writer.write(Int64(lineLimit)) }
    }

    init(reading reader: inout WireReader) throws(WireFormatError) {
        let present = try reader.byte("a text style")
        guard present < 32 else { throw reader.error("\(present) is not a set of text attributes") }
        self.init()
        func has(_ field: Field) -> Bool { present & field.rawValue != 0 }
        if has(.font) {
            let raw = try reader.byte("a font")
            guard let name = FontSpec.Name(rawValue: raw) else { throw reader.error("\(raw) is not a font") }
            let size = try reader.optionalDouble("a font's size")
            let weight = try Self.weight(&reader, plusOne: true)
            font = FontSpec(
                name: name,
                size: size,
                weight: weight,
                italic: try reader.bool("whether a font is italic"),
                monospaced: try reader.bool("whether a font is monospaced")
            )
        }
        if has(.weight) { weight = try Self.weight(&reader, plusOne: false) }
        if has(.italic) { italic = try reader.bool("whether text is italic") }
        if has(.foreground) { foreground = try Paint(reading: &reader) }
        if has(.lineLimit) {
            guard let limit = Int(exactly: try reader.int64("a line limit")) else {
                throw reader.error("a line limit does not fit in an Int")
            }
            lineLimit = limit
        }
    }

    /// A weight: its raw value, or (`plusOne`) 0 for none and the raw value plus one.
    private static func weight(_ reader: inout WireReader, plusOne: Bool) throws(WireFormatError) -> FontWeightName? {
        let raw = try reader.byte("a font weight")
        if plusOne && raw == 0 { return nil }
        guard let weight = FontWeightName(rawValue: plusOne ? raw - 1 : raw) else {
            throw reader.error("\(raw) is not a font weight")
        }
        return weight
    }
}

extension Paint {
    func write(to writer: inout WireWriter) {
        switch self {
        case .hierarchical(let level):
            writer.write(byte: 0)
            writer.write(byte: level)
        case .color(let red, let green, let blue, let opacity):
            writer.write(byte: 1)
            for component in [red, green, blue, opacity] { writer.write(component) }
        case .named(let name):
            writer.write(byte: 2)
            writer.write(name)
        case .fill(let level):
            writer.write(byte: 3)
            writer.write(byte: level)
        case .background:
            writer.write(byte: 4)
        case .linearGradient(let colors, let startX, let startY, let endX, let endY):
            writer.write(byte: 5)
            writer.write(count: colors.count)
            for color in colors { color.firstColor.write(to: &writer) }
            for coordinate in [startX, startY, endX, endY] { writer.write(coordinate) }
        }
    }

    init(reading reader: inout WireReader, inGradient: Bool = false) throws(WireFormatError) {
        switch try reader.byte(inGradient ? "a gradient's colour" : "a paint") {
        case 0: self = .hierarchical(try reader.byte("a hierarchical level"))
        case 1:
            self = .color(
                red: try reader.double("a colour's red"),
                green: try reader.double("a colour's green"),
                blue: try reader.double("a colour's blue"),
                opacity: try reader.double("a colour's opacity")
            )
        case 2: self = .named(try reader.string("a colour's name"))
        case 3: self = .fill(try reader.byte("a fill level"))
        case 4: self = .background
        case 5 where !inGradient:
            let count = try reader.count("the number of a gradient's colours")
            var colors: [Paint] = []
            for _ in 0..<count { colors.append(try Paint(reading: &reader, inGradient: true)) }
            self = .linearGradient(
                colors: colors,
                startX: try reader.double("a gradient's start x"),
                startY: try reader.double("a gradient's start y"),
                endX: try reader.double("a gradient's end x"),
                endY: try reader.double("a gradient's end y")
            )
        case 5: throw reader.error("a gradient's colour is itself a gradient")
        case let other: throw reader.error("\(other) is not a kind of paint")
        }
    }
}

extension ShapeNode {
    func write(to writer: inout WireWriter) {
        switch outline {
        case .rectangle: writer.write(byte: 0)
        case .roundedRectangle(let radius):
            writer.write(byte: 1)
            writer.write(radius)
        case .circle: writer.write(byte: 2)
        case .ellipse: writer.write(byte: 3)
        case .capsule: writer.write(byte: 4)
        case .path(let elements):
            writer.write(byte: 5)
            writer.write(count: elements.count)
            for element in elements {
                switch element {
                case .move: writer.write(byte: 0)
                case .line: writer.write(byte: 1)
                case .quadCurve: writer.write(byte: 2)
                case .curve: writer.write(byte: 3)
                case .close: writer.write(byte: 4)
                }
                for coordinate in element.coordinates { writer.write(coordinate) }
            }
        }
        paint.write(to: &writer)
        switch drawing {
        case .fill: writer.write(byte: 0)
        case .stroke(let width):
            writer.write(byte: 1)
            writer.write(width)
        case .strokeBorder(let width):
            writer.write(byte: 2)
            writer.write(width)
        }
    }

    init(reading reader: inout WireReader) throws(WireFormatError) {
        switch try reader.byte("a shape's outline") {
        case 0: outline = .rectangle
        case 1: outline = .roundedRectangle(cornerRadius: try reader.double("a corner radius"))
        case 2: outline = .circle
        case 3: outline = .ellipse
        case 4: outline = .capsule
        case 5:
            let count = try reader.count("the number of a path's elements")
            var elements: [PathElement] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                let step = try reader.byte("a path element")
                func point(_ what: String) throws(WireFormatError) -> (Double, Double) {
                    (try reader.double("\(what)'s x"), try reader.double("\(what)'s y"))
                }
                switch step {
                case 0:
                    let (x, y) = try point("a move")
                    elements.append(.move(x: x, y: y))
                case 1:
                    let (x, y) = try point("a line")
                    elements.append(.line(x: x, y: y))
                case 2:
                    let (controlX, controlY) = try point("a curve's control point")
                    let (x, y) = try point("a curve's end")
                    elements.append(.quadCurve(x: x, y: y, controlX: controlX, controlY: controlY))
                case 3:
                    let (c1x, c1y) = try point("a curve's first control point")
                    let (c2x, c2y) = try point("a curve's second control point")
                    let (x, y) = try point("a curve's end")
                    elements.append(.curve(x: x, y: y, control1X: c1x, control1Y: c1y, control2X: c2x, control2Y: c2y))
                case 4: elements.append(.close)
                case let other: throw reader.error("\(other) is not a kind of path element")
                }
            }
            outline = .path(elements)
        case let other: throw reader.error("\(other) is not a kind of shape")
        }
        paint = try Paint(reading: &reader)
        switch try reader.byte("how a shape is drawn") {
        case 0: drawing = .fill
        case 1: drawing = .stroke(lineWidth: try reader.double("a stroke's width"))
        case 2: drawing = .strokeBorder(lineWidth: try reader.double("a stroke's width"))
        case let other: throw reader.error("\(other) is not a way to draw a shape")
        }
    }
}
