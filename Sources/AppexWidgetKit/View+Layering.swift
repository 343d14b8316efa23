// Content on top of or behind a view, and environment values for what is inside.
extension View {
    /// `overlay` drawn on top of the view, aligned as given.
    public func overlay<Overlay: View>(
        alignment: Alignment = .center,
        @ViewBuilder content: () -> Overlay
    ) -> ZStack<TupleView<Self, Overlay>> {
        let overlay = content()
        return ZStack(alignment: alignment) { TupleView(self, overlay) }
    }

    /// `overlay` drawn on top of the view, aligned as given.
    public func overlay<Overlay: View>(
        _ overlay: Overlay,
        alignment: Alignment = .center
    ) -> ZStack<
        TupleView<Self, Overlay>
    > {
        ZStack(alignment: alignment) { TupleView(self, overlay) }
    }

    /// `background` drawn behind the view, aligned as given.
    public func background<Background: View>(
        alignment: Alignment = .center,
        @ViewBuilder content: () -> Background
    ) -> ZStack<TupleView<Background, Self>> {
        let background = content()
        return ZStack(alignment: alignment) { TupleView(background, self) }
    }

    /// `background` drawn behind the view, aligned as given (SwiftUI's iOS 13 form, which widgets
    /// still use: `.background(ContainerRelativeShape().fill(.red))`).
    public func background<Background: View>(
        _ background: Background,
        alignment: Alignment = .center
    ) -> ZStack<TupleView<Background, Self>> {
        ZStack(alignment: alignment) { TupleView(background, self) }
    }

    /// `style` drawn behind the view in `shape`; on Linux the shape is the view's rectangle.
    public func background(_ style: some ShapeStyle, in shape: some Shape) -> ModifiedContent<Self> {
        background(style)
    }

    /// The view, with the environment value at `keyPath` set to `value` for everything inside.
    public func environment<Value>(
        _ keyPath: WritableKeyPath<EnvironmentValues, Value>,
        _ value: Value
    ) -> EnvironmentModifiedView<Self> {
        EnvironmentModifiedView(content: self) { $0[keyPath: keyPath] = value }
    }
}

/// A view resolved in a changed environment: what `.environment(_:_:)` returns.
public struct EnvironmentModifiedView<Content: View>: View {
    let content: Content
    let change: (inout EnvironmentValues) -> Void
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        var changed = environment
        change(&changed)
        return ViewResolver.resolve(content, environment: changed)
    }
}
