package import AppexWidgetKit

extension ViewTree {
    /// The intent controls of the tree in the order the renderers meet them (depth first, as
    /// written; none below ``ViewNode/drawnDepth``, which they do not draw): a tap names its
    /// control by this index (`data-intent` in HTML), and the host performs that one.
    package var controls: [IntentControl] {
        var found: [IntentControl] = []
        func visit(_ node: ViewNode, _ depth: Int) {
            guard depth < ViewNode.drawnDepth else { return }
            switch node {
            case .control(let control, let label):
                found.append(control)
                visit(label, depth + 1)
            case .group(let children), .stack(_, _, _, let children):
                for child in ViewNode.flattened(children) { visit(child, depth + 1) }
            case .link(_, let child), .styled(_, let child), .padding(_, let child), .frame(_, let child),
                .background(_, let child), .widgetURL(_, let child), .sceneControl(_, let child):
                visit(child, depth + 1)
            case .empty, .text, .image, .spacer, .divider, .label, .shape: break
            }
        }
        visit(root, 0)
        return found
    }
}
