internal import AppexCoding

/// A widget entry's view, resolved and encoded: what a widget extension sends the widget host and
/// what its renderers draw.
///
/// The encoding is compact and versioned: one version byte (``currentVersion``), then the tree.
/// Version 2 is a schema-driven binary form written by hand (see `ViewNode+Wire.swift`); version
/// 1, the compact coder's form, is still read (trees a host stored before). An encoded tree may
/// be at most ``byteLimit`` bytes and nest at most 128 levels; a larger or deeper one is refused
/// with an error naming the widget.
public struct ViewTree: Sendable, Hashable {
    /// The version of the encoding this build writes.
    public static let currentVersion: UInt8 = 2
    /// The largest encoded tree a widget may send for one entry: 64 KiB.
    public static let byteLimit = 64 * 1024

    package let root: ViewNode

    package init(root: ViewNode) { self.root = root }

    /// Resolves `view` as a widget of `family` shows it: runs every `body`, applies modifiers,
    /// and keeps what the renderers need.
    public init(_ view: some View, family: WidgetFamily = .systemSmall) {
        root = ViewResolver.resolve(view, environment: EnvironmentValues(widgetFamily: family))
    }

    /// The encoded form: the version byte, then the tree.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `coding` if the tree nests deeper than the format allows.
    public func encoded() throws(AppexError) -> [UInt8] {
        var writer = WireWriter(prefix: [Self.currentVersion], capacity: 512)
        guard root.write(to: &writer) else {
            throw AppexError(
                .coding,
                "a widget's view tree nests deeper than \(ViewNode.maximumDepth) levels, which no host reads"
            )
        }
        return writer.bytes
    }

    /// Decodes a tree a widget sent.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `protocolViolation` for an empty input, an unknown version or
    ///   bytes that are no tree; `viewTreeTooLarge` when `bytes` exceeds ``byteLimit``.
    public init(decoding bytes: [UInt8]) throws(AppexError) {
        guard bytes.count <= Self.byteLimit else {
            throw AppexError(
                .viewTreeTooLarge,
                "a view tree of \(bytes.count) bytes exceeds the limit of \(Self.byteLimit) bytes"
            )
        }
        guard let version = bytes.first else {
            throw AppexError(.protocolViolation, "an empty view tree (no version byte)")
        }
        switch version {
        case 2:
            do throws(WireFormatError) {
                var reader = WireReader(bytes, from: 1)
                root = try ViewNode(reading: &reader)
                try reader.expectEnd(of: "the tree")
            } catch {
                throw AppexError(.protocolViolation, "the bytes are not a view tree: \(error)")
            }
        case 1:
            do {
                root = try CompactDecoder().decode(ViewNode.self, from: bytes[1...])
            } catch {
                throw AppexError(.protocolViolation, "the bytes are not a view tree: \(error)", underlyingError: error)
            }
        default:
            throw AppexError(
                .protocolViolation,
                "view tree version \(version) is not one this build reads (it reads 1 and \(Self.currentVersion))"
            )
        }
    }
}

extension ViewTree {
    /// The URL a tap on the whole widget opens: the outermost `widgetURL`, if any.
    public var widgetURL: String? { root.firstWidgetURL }
}

extension ViewNode {
    /// The outermost `widgetURL` in the tree, breadth first.
    var firstWidgetURL: String? {
        var queue: [ViewNode] = [self]
        var index = 0
        while index < queue.count {
            let node = queue[index]
            index += 1
            switch node {
            case .widgetURL(let url, _): return url
            case .group(let children), .stack(_, _, _, let children): queue += children
            case .link(_, let child), .styled(_, let child), .padding(_, let child), .frame(_, let child),
                .background(_, let child), .control(_, let child), .sceneControl(_, let child):
                queue.append(child)
            case .empty, .text, .image, .spacer, .divider, .label, .shape: break
            }
        }
        return nil
    }
}

extension ViewTree {
    /// Every URL a tap on the tree may open: its `widgetURL`s and its `Link`s' destinations.
    /// A window opens a URL only when the widget's current tree holds it.
    package var destinations: Set<String> {
        var found: Set<String> = []
        func visit(_ node: ViewNode) {
            switch node {
            case .widgetURL(let url, let child):
                found.insert(url)
                visit(child)
            case .link(let url, let child):
                found.insert(url)
                visit(child)
            case .group(let children), .stack(_, _, _, let children): children.forEach(visit)
            case .styled(_, let child), .padding(_, let child), .frame(_, let child), .background(_, let child),
                .control(_, let child), .sceneControl(_, let child):
                visit(child)
            case .empty, .text, .image, .spacer, .divider, .label, .shape: break
            }
        }
        visit(root)
        return found
    }

    /// Every verbatim text of the tree, in order, one per line: what tests and logs read.
    package var texts: [String] {
        var found: [String] = []
        func visit(_ node: ViewNode) {
            switch node {
            case .text(let runs), .label(let runs, _):
                found.append(
                    runs.map { run in
                        if case .verbatim(let text) = run.content { return text }
                        return ""
                    }.joined()
                )
            case .group(let children), .stack(_, _, _, let children): children.forEach(visit)
            case .link(_, let child), .styled(_, let child), .padding(_, let child), .frame(_, let child),
                .background(_, let child), .widgetURL(_, let child), .control(_, let child),
                .sceneControl(_, let child):
                visit(child)
            case .empty, .image, .spacer, .divider, .shape: break
            }
        }
        visit(root)
        return found
    }
}
