internal import AppexWidgetKit

/// What both renderers need to know about a node's layout before drawing it.
extension ViewNode {
    /// How deep a tree is drawn: nodes below this depth are not drawn, so a widget cannot make
    /// the host recurse without bound.
    static let drawnDepth = 100

    /// Whether the node takes all the width it is offered: a `Divider`, a `Color`, a row with a
    /// `Spacer`, a frame with an infinite `maxWidth`, or anything around one of these.
    func isFlexibleWidth(depth: Int = 0) -> Bool {
        guard depth < Self.drawnDepth else { return false }
        switch self {
        case .divider, .background(_, .empty), .shape:
            return true
        case .stack(.horizontal, _, _, let children):
            return Self.flattened(children).contains {
                if case .spacer = $0 { return true }
                return $0.isFlexibleWidth(depth: depth + 1)
            }
        case .stack(_, _, _, let children), .group(let children):
            return Self.flattened(children).contains { $0.isFlexibleWidth(depth: depth + 1) }
        case .frame(let spec, let content):
            if spec.width == .infinity || (spec.width == nil && spec.maxWidth == .infinity) { return true }
            return spec.width == nil && spec.maxWidth == nil && content.isFlexibleWidth(depth: depth + 1)
        case .padding(_, let content), .styled(_, let content), .link(_, let content), .widgetURL(_, let content),
            .background(_, let content), .control(_, let content), .sceneControl(_, let content):
            return content.isFlexibleWidth(depth: depth + 1)
        case .empty, .spacer, .text, .image, .label:
            return false
        }
    }

    /// Whether the node takes all the height it is offered: a `Color`, a column (or group) with a
    /// `Spacer`, a frame with an infinite `maxHeight`, or anything around one of these.
    func isFlexibleHeight(depth: Int = 0) -> Bool {
        guard depth < Self.drawnDepth else { return false }
        switch self {
        case .background(_, .empty), .shape:
            return true
        case .stack(.vertical, _, _, let children), .group(let children):
            return Self.flattened(children).contains {
                if case .spacer = $0 { return true }
                return $0.isFlexibleHeight(depth: depth + 1)
            }
        case .stack(_, _, _, let children):
            return Self.flattened(children).contains { $0.isFlexibleHeight(depth: depth + 1) }
        case .frame(let spec, let content):
            if spec.height == .infinity || (spec.height == nil && spec.maxHeight == .infinity) { return true }
            return spec.height == nil && spec.maxHeight == nil && content.isFlexibleHeight(depth: depth + 1)
        case .padding(_, let content), .styled(_, let content), .link(_, let content), .widgetURL(_, let content),
            .background(_, let content), .control(_, let content), .sceneControl(_, let content):
            return content.isFlexibleHeight(depth: depth + 1)
        case .empty, .spacer, .divider, .text, .image, .label:
            return false
        }
    }

    /// How a terminal draws a control: a button as its label, a switch as `[x]` or `[ ]` and its
    /// label.
    static func terminalForm(of control: IntentControl, label: ViewNode) -> ViewNode {
        switch control.kind {
        case .button: return label
        case .toggleOn, .toggleOff:
            let mark = TextRun(content: .verbatim(control.kind == .toggleOn ? "[x]" : "[ ]"))
            return .stack(.horizontal, alignment: .center, spacing: 4, children: [.text([mark]), label])
        }
    }

    /// How a terminal draws a scene's control: a button as `[ label ]`, a switch as `[x]` or
    /// `[ ]` and its label, a text field as `label: text`, a picker as `label: choice`.
    static func terminalForm(of control: SceneControl, label: ViewNode) -> ViewNode {
        func text(_ value: String) -> ViewNode { .text([TextRun(content: .verbatim(value))]) }
        func row(_ children: [ViewNode]) -> ViewNode {
            .stack(.horizontal, alignment: .center, spacing: 4, children: children)
        }
        switch control.kind {
        case .button: return row([text("["), label, text("]")])
        case .toggle(let isOn): return row([text(isOn ? "[x]" : "[ ]"), label])
        case .textField(let value, let prompt): return row([label, text(": " + (value.isEmpty ? prompt : value))])
        case .picker(let selected, let options):
            let choice = options.indices.contains(selected) ? options[selected] : "—"
            return row([label, text(": ‹" + choice + "›")])
        }
    }

    /// A stack's children, with groups opened (as the resolver does for trees it builds; a
    /// decoded tree may still have them) and empty nodes dropped.
    static func flattened(_ children: [ViewNode]) -> [ViewNode] {
        let isFlat = !children.contains {
            switch $0 {
            case .empty, .group: true
            default: false
            }
        }
        if isFlat { return children }  // most stacks: nothing to open or drop, nothing to copy
        var result: [ViewNode] = []
        var pending = Array(children.reversed())
        while let child = pending.popLast() {
            switch child {
            case .empty: continue
            case .group(let inner): pending.append(contentsOf: inner.reversed())
            default: result.append(child)
            }
        }
        return result
    }
}
