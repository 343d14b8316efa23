/// An image: an SF Symbol by name, drawn on Linux as the symbol's name or an emoji that stands
/// for it (see the renderers), or an asset by name, drawn as its name.
public struct Image: View, PrimitiveView, Hashable, Sendable {
    let source: ImageSource

    /// The SF Symbol `systemName`.
    public init(systemName: String) { source = .system(systemName) }

    /// The asset image `name`.
    public init(_ name: String) { source = .named(name) }

    /// Never called.
    public var body: Never { fatalNever() }
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
public struct Label: View, PrimitiveView {
    let title: [TextRun]
    let icon: ImageSource?

    /// `title` with the SF Symbol `systemImage`.
    public init<S: StringProtocol>(_ title: S, systemImage: String) {
        self.title = Text(title).runs
        icon = .system(systemImage)
    }

    /// `title` with the asset image `image`.
    public init<S: StringProtocol>(_ title: S, image: String) {
        self.title = Text(title).runs
        icon = .named(image)
    }

    /// A label from a text and an image.
    public init(@ViewBuilder title: () -> Text, @ViewBuilder icon: () -> Image) {
        self.title = title().runs
        self.icon = icon().source
    }

    /// Never called.
    public var body: Never { fatalNever() }
    package func node(in environment: EnvironmentValues) -> ViewNode { .label(title: title, icon: icon) }
}

/// Content that opens a URL when tapped, as in SwiftUI: the widget host opens the widget's
/// containing app with it (see `onOpenURL(perform:)`).
public struct Link<Label: View>: View, PrimitiveView {
    let destination: URL
    let label: Label

    /// A link to `destination` drawn as `label`.
    public init(destination: URL, @ViewBuilder label: () -> Label) {
        self.destination = destination
        self.label = label()
    }

    /// Never called.
    public var body: Never { fatalNever() }
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
