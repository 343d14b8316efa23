/// A reusable change to a view, as SwiftUI's `ViewModifier`: `body(content:)` returns the view
/// made from the content it is applied to with `.modifier(_:)`.
///
/// ```swift
/// struct Card: ViewModifier {
///     func body(content: Content) -> some View {
///         content.padding().background(Color.gray.opacity(0.2))
///     }
/// }
///
/// Text("Hello").modifier(Card())
/// ```
public protocol ViewModifier {
    /// The view `body(content:)` returns.
    associatedtype Body: View
    /// The view the modifier is applied to.
    typealias Content = ViewModifierContent<Self>
    /// The modified view.
    @ViewBuilder func body(content: Content) -> Body
}

/// The view a ``ViewModifier`` is applied to, as its `body(content:)` gets it.
public struct ViewModifierContent<Modifier: ViewModifier>: View {
    let node: ViewNode

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: the content, already resolved.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node
    }
}

/// A view with a ``ViewModifier`` applied: what `.modifier(_:)` returns.
public struct ModifiedByModifier<Content: View, Modifier: ViewModifier>: View {
    let content: Content
    let modifier: Modifier

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: the modifier's body for the resolved content.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        let content = ViewModifierContent<Modifier>(node: ViewResolver.node(of: view.content))
        resolution.node = ViewResolver.node(of: view.modifier.body(content: content))
    }
}

extension View {
    /// This view changed by `modifier`.
    public func modifier<Modifier: ViewModifier>(_ modifier: Modifier) -> ModifiedByModifier<Self, Modifier> {
        ModifiedByModifier(content: self, modifier: modifier)
    }

    /// Accepted; never called on Linux: a widget's view is drawn, not shown live (as on Apple
    /// platforms, where a widget's `onAppear` does not run either).
    public func onAppear(perform action: (() -> Void)? = nil) -> Self { self }

    /// Accepted; never called: widgets take taps through `Link`, `widgetURL` and
    /// `Button(intent:)`, as on Apple platforms.
    public func onTapGesture(count: Int = 1, perform action: @escaping () -> Void) -> Self { self }
}
