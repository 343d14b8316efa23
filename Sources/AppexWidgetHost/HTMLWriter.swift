internal import AppexWidgetKit

/// Writes a view tree as HTML, for ``HTMLRenderer``.
///
/// Stacks are flex containers (a `ZStack` a one-cell grid); modifiers are wrapper `div`s; a
/// flexible child grows along its parent's axis and stretches across it. Every string from the
/// widget goes through ``HTMLEscaping/escape(_:)``; `class` attributes hold only names of the
/// style sheet, and `style` attributes only numbers formatted by ``CSSValues``.
struct HTMLWriter {
    /// Formats the dates in texts.
    let dates: DateText
    /// The attribute the declarations go in: `style`, or, for a page whose CSP forbids inline
    /// styles, `data-style` (the window's own script applies them through the CSSOM).
    let styleAttribute: String
    private(set) var output = ""
    /// How many intent controls were written: the next one's `data-intent` (the order of
    /// `ViewTree.controls`).
    private var controls = 0

    /// Whether links go through the host: no `href` (a middle-click or a drag cannot follow
    /// one), only `data-open-url`, which the window's script sends to the host to check and open.
    let linksThroughHost: Bool

    init(dates: DateText, styleAttribute: String = "style", linksThroughHost: Bool = false) {
        self.dates = dates
        self.styleAttribute = styleAttribute
        self.linksThroughHost = linksThroughHost
    }

    /// Where a node is: the axis of its container, whether a link encloses it, and whether only
    /// modifiers lie between it and the root (such a modifier fills the widget).
    struct Context {
        var axis: StackAxis = .vertical
        var insideLink = false
        var atRoot = true
        var depth = 0

        func child(axis: StackAxis = .vertical, keepsRoot: Bool = false) -> Context {
            Context(axis: axis, insideLink: insideLink, atRoot: atRoot && keepsRoot, depth: depth + 1)
        }
    }

    /// Writes `node`.
    mutating func write(_ node: ViewNode, _ context: Context) {
        guard context.depth < ViewNode.drawnDepth else { return }
        var classes = Self.layoutClasses(of: node, in: context.axis)
        switch node {
        case .empty:
            return
        case .group(let children):
            open("div", ["vstack", "h-center"] + classes)
            for child in ViewNode.flattened(children) { write(child, context.child()) }
            output += "</div>"
        case .text(let runs):
            open("span", ["text"] + classes)
            writeRuns(runs)
            output += "</span>"
        case .image(let source):
            writeImage(source, classes: classes)
        case .label(let title, let icon):
            open("span", ["text", "label"] + classes)
            if let icon {
                writeImage(icon, classes: [])
                output += " "
            }
            writeRuns(title)
            output += "</span>"
        case .stack(let axis, let alignment, let spacing, let children):
            switch axis {
            case .vertical: classes = ["vstack", "h-\(alignment.horizontal)"] + classes
            case .horizontal: classes = ["hstack", "v-\(alignment.vertical)"] + classes
            case .depth: classes = ["zstack", "h-\(alignment.horizontal)", "v-\(alignment.vertical)"] + classes
            }
            let gap = axis == .depth ? nil : spacing.flatMap(CSSValues.pixels).map { "gap:\($0)" }
            open("div", classes, style: gap.map { [$0] } ?? [])
            for child in ViewNode.flattened(children) { write(child, context.child(axis: axis)) }
            output += "</div>"
        case .spacer(let minLength):
            let property = context.axis == .horizontal ? "min-width" : context.axis == .vertical ? "min-height" : nil
            let length = minLength.flatMap(CSSValues.pixels)
            open("span", ["spacer"], style: property.flatMap { name in length.map { ["\(name):\($0)"] } } ?? [])
            output += "</span>"
        case .divider:
            output += classes.isEmpty ? "<hr>" : "<hr class=\"\(classes.joined(separator: " "))\">"
        case .styled(let style, let content):
            let (styleClasses, declarations) = Self.attributes(of: style)
            var wrapperClasses = ["w"] + styleClasses + classes
            var wrapperStyle = declarations
            if let limit = style.lineLimit {
                wrapperClasses.append("clamp")
                wrapperStyle.append("--lines:\(min(max(limit, 1), 1_000))")
            }
            if context.atRoot { wrapperClasses.append("root") }
            open("div", wrapperClasses, style: wrapperStyle)
            write(content, context.child(keepsRoot: true))
            output += "</div>"
        case .padding(let insets, let content):
            let edges = [insets.top, insets.trailing, insets.bottom, insets.leading].map {
                CSSValues.pixels($0) ?? "0px"
            }
            open("div", ["w"] + classes, style: ["padding:" + edges.joined(separator: " ")])
            write(content, context.child())
            output += "</div>"
        case .frame(let spec, let content):
            var declarations: [String] = []
            if let width = spec.width.flatMap(CSSValues.pixels) { declarations.append("width:\(width)") }
            if let height = spec.height.flatMap(CSSValues.pixels) { declarations.append("height:\(height)") }
            if let width = spec.maxWidth.flatMap(CSSValues.pixels) { declarations.append("max-width:\(width)") }
            if let height = spec.maxHeight.flatMap(CSSValues.pixels) { declarations.append("max-height:\(height)") }
            let alignment = ["h-\(spec.alignment.horizontal)", "v-\(spec.alignment.vertical)"]
            open("div", ["frame"] + alignment + classes, style: declarations)
            write(content, context.child())
            output += "</div>"
        case .background(let paint, let content):
            let (className, declaration) = CSSValues.paint(paint, prefix: "bg")
            var wrapperClasses = ["w"] + (className.map { [$0] } ?? []) + classes
            if context.atRoot { wrapperClasses.append("root") }
            open("div", wrapperClasses, style: declaration.map { [$0] } ?? [])
            write(content, context.child(keepsRoot: true))
            output += "</div>"
        case .shape(let shape):
            writeShape(shape, classes: classes)
        case .link(let destination, let content):
            writeLink(destination, content: content, kind: "link", classes: classes, context)
        case .widgetURL(let destination, let content):
            writeLink(destination, content: content, kind: "widget-url", classes: classes, context)
        case .control(let control, let label):
            let index = controls
            controls += 1
            var attributes: KeyValuePairs<String, String> = ["type": "button", "data-intent": "\(index)"]
            switch control.kind {
            case .button:
                classes = ["control", "intent-button"] + classes
            case .toggleOn, .toggleOff:
                let on = control.kind == .toggleOn
                classes = ["control", "intent-toggle", on ? "on" : "off"] + classes
                attributes = ["type": "button", "data-intent": "\(index)", "role": "switch", "aria-checked": "\(on)"]
            }
            open("button", classes, attributes: attributes)
            write(label, context.child(keepsRoot: true))
            output += "</button>"
        case .sceneControl(let control, let label):
            writeSceneControl(control, label: label, classes: classes, context)
        }
    }

    /// A scene's control: `data-scene-control` carries its number, which the page sends back
    /// with the event (a click, a new text, an option's index). Every value is escaped.
    private mutating func writeSceneControl(
        _ control: SceneControl,
        label: ViewNode,
        classes: [String],
        _ context: Context
    ) {
        let number = "\(control.index)"
        switch control.kind {
        case .button:
            open(
                "button",
                ["control", "scene-button"] + classes,
                attributes: ["type": "button", "data-scene-control": number]
            )
            write(label, context.child(keepsRoot: true))
            output += "</button>"
        case .toggle(let isOn):
            open(
                "button",
                ["control", "scene-toggle", isOn ? "on" : "off"] + classes,
                attributes: [
                    "type": "button", "role": "switch", "aria-checked": "\(isOn)", "data-scene-control": number,
                ]
            )
            write(label, context.child(keepsRoot: true))
            output += "</button>"
        case .textField(let text, let prompt):
            open("label", ["scene-field"] + classes)
            write(label, context.child(keepsRoot: true))
            open(
                "input",
                [],
                attributes: ["type": "text", "value": text, "placeholder": prompt, "data-scene-control": number]
            )
            output += "</label>"
        case .picker(let selected, let options):
            open("label", ["scene-field"] + classes)
            write(label, context.child(keepsRoot: true))
            open("select", [], attributes: ["data-scene-control": number])
            for (index, option) in options.enumerated() {
                if index == selected {
                    open("option", [], attributes: ["value": "\(index)", "selected": "selected"])
                } else {
                    open("option", [], attributes: ["value": "\(index)"])
                }
                output += HTMLEscaping.escape(option) + "</option>"
            }
            output += "</select></label>"
        }
    }

    /// An `<a>` opening `destination` around `content`, when the URL is safe; a `<span>` naming
    /// it inside another link (links do not nest); `content` alone when the URL is not safe.
    private mutating func writeLink(
        _ destination: String,
        content: ViewNode,
        kind: String,
        classes: [String],
        _ context: Context
    ) {
        guard HTMLEscaping.isSafeLink(destination) else {
            write(content, context.child(axis: context.axis, keepsRoot: true))
            return
        }
        let url = HTMLEscaping.escape(destination)
        let allClasses = ([kind] + classes + (context.atRoot ? ["root"] : [])).joined(separator: " ")
        if context.insideLink {
            output += "<span class=\"\(allClasses)\" data-open-url=\"\(url)\">"
        } else if linksThroughHost {
            output += "<a class=\"\(allClasses)\" role=\"link\" tabindex=\"0\" data-open-url=\"\(url)\">"
        } else {
            output += "<a class=\"\(allClasses)\" href=\"\(url)\" data-open-url=\"\(url)\">"
        }
        var inner = context.child(keepsRoot: true)
        inner.insideLink = true
        write(content, inner)
        output += context.insideLink ? "</span>" : "</a>"
    }

    private mutating func writeRuns(_ runs: [TextRun]) {
        for run in runs {
            let text = HTMLEscaping.escape(dates.string(for: run.content))
            let (classes, declarations) = Self.attributes(of: run.style)
            // A running timer carries its date (seconds since 1970, a number this code formats),
            // so a page with a script (the widget desktop) keeps it moving between entries.
            if case .date(let seconds, .timer) = run.content, seconds.isFinite, abs(seconds) < 1e11 {
                open("span", classes, style: declarations, attributes: ["data-timer": "\(Int(seconds.rounded()))"])
                output += text + "</span>"
            } else if classes.isEmpty && declarations.isEmpty {
                output += text
            } else {
                open("span", classes, style: declarations)
                output += text + "</span>"
            }
        }
    }

    private mutating func writeImage(_ source: ImageSource, classes: [String]) {
        let name: String
        let glyph: String
        switch source {
        case .system(let symbol):
            name = symbol
            glyph = SymbolGlyphs.emoji(forSymbol: symbol) ?? "[\(symbol)]"
        case .named(let asset):
            name = asset
            glyph = "[\(asset)]"
        }
        open("span", ["symbol"] + classes, attributes: ["role": "img", "aria-label": name])
        output += HTMLEscaping.escape(glyph) + "</span>"
    }

    /// Writes a shape: a `div` with its corners (a circle centred in a box of the space
    /// offered), filled with a background or outlined with a border; a path filled through a
    /// `clip-path`, or stroked in an `svg`.
    private mutating func writeShape(_ shape: ShapeNode, classes: [String]) {
        var shapeClasses = ["shape"]
        var declarations: [String] = []
        switch shape.outline {
        case .rectangle, .path: break
        case .roundedRectangle(let radius): declarations.append("border-radius:\(CSSValues.pixels(radius) ?? "0px")")
        case .circle: shapeClasses.append("shape-circle")
        case .ellipse: shapeClasses.append("shape-ellipse")
        case .capsule: shapeClasses.append("shape-capsule")
        }
        var strokeWidth: Double?
        switch shape.drawing {
        case .fill:
            let (className, declaration) = CSSValues.paint(shape.paint, prefix: "bg")
            if let className { shapeClasses.append(className) }
            if let declaration { declarations.append(declaration) }
            if case .path(let elements) = shape.outline {
                declarations.append("clip-path:path('\(CSSValues.pathData(elements))')")
            }
        case .stroke(let width), .strokeBorder(let width):
            // The shape's own foreground unless it names a paint: `.stroke(lineWidth:)` is drawn in
            // the foreground style, as `.fill()` is.
            if shape.paint != .hierarchical(0) {
                let (className, declaration) = CSSValues.paint(shape.paint, prefix: "fg")
                if let className { shapeClasses.append(className) }
                if let declaration { declarations.append(declaration) }
            }
            strokeWidth = width
            let pixels = CSSValues.pixels(width) ?? "1px"
            if case .path = shape.outline {
                break
            } else if case .stroke = shape.drawing {
                declarations.append("outline:\(pixels) solid currentColor")
                declarations.append("outline-offset:-\(CSSValues.pixels(width / 2) ?? "0px")")
            } else {
                declarations.append("border:\(pixels) solid currentColor")
            }
        }
        if case .circle = shape.outline {
            open("div", ["shape-box"] + classes)
            open("div", shapeClasses, style: declarations)
            output += "</div></div>"
            return
        }
        open("div", shapeClasses + classes, style: declarations)
        if case .path(let elements) = shape.outline, let strokeWidth {
            output += "<svg aria-hidden=\"true\"><path d=\"\(CSSValues.pathData(elements))\" fill=\"none\""
            output += " stroke=\"currentColor\" stroke-width=\"\(CSSValues.decimal(strokeWidth, places: 1))\"/></svg>"
        }
        output += "</div>"
    }

    /// Writes a start tag. `classes` must be names of the style sheet and `style` declarations
    /// made of formatted numbers; `attributes`' values are escaped.
    private mutating func open(
        _ tag: String,
        _ classes: [String],
        style: [String] = [],
        attributes: KeyValuePairs<String, String> = [:]
    ) {
        output += "<" + tag
        if !classes.isEmpty { output += " class=\"" + classes.joined(separator: " ") + "\"" }
        for (name, value) in attributes { output += " \(name)=\"\(HTMLEscaping.escape(value))\"" }
        if !style.isEmpty { output += " \(styleAttribute)=\"" + style.joined(separator: ";") + "\"" }
        output += ">"
    }

    /// How a flexible node fills its container: it grows along the container's axis and
    /// stretches across it (in a `ZStack`, both ways).
    static func layoutClasses(of node: ViewNode, in axis: StackAxis) -> [String] {
        if case .divider = node { return [] }
        let wide = node.isFlexibleWidth()
        let tall = node.isFlexibleHeight()
        switch axis {
        case .vertical: return (tall ? ["grow"] : []) + (wide ? ["stretch"] : [])
        case .horizontal: return (wide ? ["grow"] : []) + (tall ? ["stretch"] : [])
        case .depth: return (wide ? ["fill-w"] : []) + (tall ? ["stretch"] : [])
        }
    }

    /// The classes and declarations of a text style.
    static func attributes(of style: TextStyle) -> (classes: [String], declarations: [String]) {
        var classes: [String] = []
        var declarations: [String] = []
        if let font = style.font {
            classes.append("font-\(font.name)")
            if font.name == .custom, let size = font.size.flatMap(CSSValues.pixels) {
                declarations.append("font-size:\(size)")
            }
            if let weight = font.weight { classes.append("weight-\(weight)") }
            if font.italic { classes.append("italic") }
            if font.monospaced { classes.append("mono") }
        }
        if let weight = style.weight { classes.append("weight-\(weight)") }
        if let italic = style.italic { classes.append(italic ? "italic" : "upright") }
        if let foreground = style.foreground {
            let (className, declaration) = CSSValues.paint(foreground, prefix: "fg")
            if let className { classes.append(className) }
            if let declaration { declarations.append(declaration) }
        }
        return (classes, declarations)
    }
}
