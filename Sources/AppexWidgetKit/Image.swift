/// An image: an SF Symbol by name, drawn on Linux as the symbol's name or an emoji that stands
/// for it (see the renderers), or an asset by name, drawn as its name.
public struct Image: View, Hashable, Sendable {
    let source: ImageSource

    /// The SF Symbol `systemName`.
    public init(systemName: String) { source = .system(systemName) }

    /// The asset image `name`.
    public init(_ name: String) { source = .named(name) }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode { .image(source) }

    /// Accepted and ignored on Linux: images are drawn at text size.
    public func resizable() -> Image { self }
    /// Accepted and ignored on Linux.
    public func renderingMode(_ mode: TemplateRenderingMode?) -> Image { self }
    /// Accepted and ignored on Linux.
    public func symbolRenderingMode(_ mode: SymbolRenderingMode?) -> Image { self }

    /// How an image is tinted; ignored on Linux.
    public enum TemplateRenderingMode: Sendable, Hashable {
        /// As drawn.
        case original
        /// Tinted.
        case template
    }
}

/// How a symbol's layers are coloured; ignored on Linux.
public struct SymbolRenderingMode: Sendable, Hashable {
    let name: String
    /// One colour.
    public static let monochrome = SymbolRenderingMode(name: "monochrome")
    /// Layers in levels of one colour.
    public static let hierarchical = SymbolRenderingMode(name: "hierarchical")
    /// Layers in given colours.
    public static let palette = SymbolRenderingMode(name: "palette")
    /// The symbol's own colours.
    public static let multicolor = SymbolRenderingMode(name: "multicolor")
}

/// A title with an icon, as in SwiftUI.
public struct Label<Title: View, Icon: View>: View {
    let title: Title
    let icon: Icon

    /// A label from a title and an icon, each any view.
    public init(@ViewBuilder title: () -> Title, @ViewBuilder icon: () -> Icon) {
        self.title = title()
        self.icon = icon()
    }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        if let text = title as? Text, let image = icon as? Image {
            return .label(title: text.runs, icon: image.source)
        }
        let children = ViewResolver.node(of: icon).flattened + ViewResolver.node(of: title).flattened
        return .stack(.horizontal, alignment: .center, spacing: nil, children: children)
    }
}

extension Label where Title == Text, Icon == Image {
    /// `title` with the SF Symbol `systemImage`.
    public init<S: StringProtocol>(_ title: S, systemImage: String) {
        self.init(title: { Text(title) }, icon: { Image(systemName: systemImage) })
    }

    /// `title` with the asset image `image`.
    public init<S: StringProtocol>(_ title: S, image: String) {
        self.init(title: { Text(title) }, icon: { Image(image) })
    }

    /// `title` (a literal) with the SF Symbol `systemImage`.
    public init(_ title: LocalizedStringKey, systemImage: String) {
        self.init(title: { Text(title) }, icon: { Image(systemName: systemImage) })
    }
}

/// Content that opens a URL when tapped, as in SwiftUI: the widget host opens the widget's
/// containing app with it (see `onOpenURL(perform:)`).
public struct Link<Label: View>: View {
    let destination: URL
    let label: Label

    /// A link to `destination` drawn as `label`.
    public init(destination: URL, @ViewBuilder label: () -> Label) {
        self.destination = destination
        self.label = label()
    }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        .link(destination: destination.absoluteString, content: ViewResolver.node(of: label))
    }
}

extension Link where Label == Text {
    /// A link to `destination` titled `title`.
    public init<S: StringProtocol>(_ title: S, destination: URL) {
        self.destination = destination
        self.label = Text(title)
    }
}
