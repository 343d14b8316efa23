/// Builds views from the statements of a closure, as SwiftUI's `ViewBuilder` does: several
/// views, `if`/`else`, `if let`, `switch`, and `if #available`.
@resultBuilder
public enum ViewBuilder {
    /// No views.
    public static func buildBlock() -> EmptyView { EmptyView() }

    /// One view.
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }

    /// Several views.
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<repeat each Content>
    {
        TupleView(repeat each content)
    }

    /// An `if` without `else`.
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }

    /// The `if` branch.
    public static func buildEither<TrueContent: View, FalseContent: View>(
        first: TrueContent
    ) -> ConditionalContent<TrueContent, FalseContent> {
        ConditionalContent(storage: .first(first))
    }

    /// The `else` branch.
    public static func buildEither<TrueContent: View, FalseContent: View>(
        second: FalseContent
    ) -> ConditionalContent<TrueContent, FalseContent> {
        ConditionalContent(storage: .second(second))
    }

    /// An `if #available` branch.
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> AnyView { AnyView(content) }
}
