/// A piece of a widget's interface, as in SwiftUI: a value whose `body` is made of other views.
///
/// ```swift
/// struct ContactRow: View {
///     var name: String
///     var body: some View {
///         HStack {
///             Image(systemName: "person.fill")
///             Text(name).font(.headline)
///         }
///     }
/// }
/// ```
///
/// Views are resolved in the widget extension, once per timeline entry, into a ``ViewTree``
/// the widget host draws. They are not `@MainActor` (nothing on Linux needs them to be) and
/// need not be `Sendable`.
public protocol View {
    /// The type of view this view's body is.
    associatedtype Body: View

    /// The content of the view, built with ``ViewBuilder`` as in SwiftUI.
    @ViewBuilder var body: Body { get }

    /// Implementation detail: resolves `view` into `resolution`. The default resolves its
    /// `body`; the views Appex draws itself provide their own. Neither call nor implement it.
    static func _makeNode(of view: Self, in resolution: inout _ViewResolution)
}

extension View {
    /// Implementation detail: a composite view resolves its `body`.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        // In a scene, the view's @State is bound to its place before its body reads it.
        if let scene = SceneResolution.current { scene.bindState(of: view) }
        Body._makeNode(of: view.body, in: &resolution)
    }
}

/// Implementation detail of ``View``: where a view's resolved node is put. Dispatch through a
/// protocol requirement rather than a dynamic cast, which in a new process scans every protocol
/// conformance of the binary once per view type.
public struct _ViewResolution {
    package var environment: EnvironmentValues
    package var node: ViewNode = .empty
    package init(environment: EnvironmentValues) { self.environment = environment }
}

extension Never: View {
    /// Never called: `Never` is the body of views Appex draws itself.
    public var body: Never { fatalNever() }

    /// Never called: there is no value of `Never` to resolve.
    public static func _makeNode(of view: Never, in resolution: inout _ViewResolution) {}
}

/// Resolves views into nodes.
package enum ViewResolver {
    @TaskLocal static var environment = EnvironmentValues()

    /// `view` resolved in `environment`.
    package static func resolve(_ view: some View, environment: EnvironmentValues) -> ViewNode {
        $environment.withValue(environment) { node(of: view) }
    }

    /// `view` resolved in the current environment.
    static func node<V: View>(of view: V) -> ViewNode {
        var resolution = _ViewResolution(environment: environment)
        V._makeNode(of: view, in: &resolution)
        return resolution.node
    }
}

/// A view that shows nothing.
public struct EmptyView: View {
    /// Makes an empty view.
    public init() {}
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode { .empty }
}

/// Views side by side in a builder: what a `body` of several statements is.
public struct TupleView<each Content: View>: View {
    let content: (repeat each Content)
    /// Wraps `content`.
    public init(_ content: repeat each Content) { self.content = (repeat each content) }
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        var children: [ViewNode] = []
        for child in repeat each content {
            children.appendFlattening(ViewResolver.node(of: child))
        }
        return ViewNode.siblings(children)
    }
}

/// One of two views, chosen by an `if`/`else` or `switch` in a builder.
public struct ConditionalContent<TrueContent: View, FalseContent: View>: View {
    enum Storage {
        case first(TrueContent)
        case second(FalseContent)
    }
    let storage: Storage
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        switch storage {
        case .first(let view): ViewResolver.node(of: view)
        case .second(let view): ViewResolver.node(of: view)
        }
    }
}

extension Optional: View where Wrapped: View {
    /// Never called.
    public var body: Never { fatalNever() }

    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
}

extension Optional where Wrapped: View {
    package func node(in environment: EnvironmentValues) -> ViewNode {
        switch self {
        case .some(let view): ViewResolver.node(of: view)
        case .none: .empty
        }
    }
}

/// A type-erased view.
public struct AnyView: View {
    let resolve: () -> ViewNode
    /// Erases `view`'s type.
    public init<V: View>(_ view: V) { resolve = { ViewResolver.node(of: view) } }
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode { resolve() }
}

/// Views in sequence without a stack of their own: the enclosing stack lays them out.
public struct Group<Content: View>: View {
    let content: Content
    /// Groups the views `content` builds.
    public init(@ViewBuilder content: () -> Content) { self.content = content() }
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode { ViewResolver.node(of: content) }
}

/// The body of a view Appex draws itself: it is never asked for, as in SwiftUI.
func fatalNever() -> Never {
    preconditionFailure("the body of a primitive view is never evaluated")
}

extension [ViewNode] {
    /// Appends `node`; the children of a ``ViewNode/group(_:)`` go in one by one, and nothing
    /// goes in for an empty node.
    mutating func appendFlattening(_ node: ViewNode) {
        switch node {
        case .empty: return
        case .group(let children): for child in children { appendFlattening(child) }
        default: append(node)
        }
    }
}

extension ViewNode {
    /// `children` as one node: nothing, the only child, or a group.
    static func siblings(_ children: [ViewNode]) -> ViewNode {
        switch children.count {
        case 0: .empty
        case 1: children[0]
        default: .group(children)
        }
    }

    /// The nodes of a stack's content: a group's children, or the node alone.
    var flattened: [ViewNode] {
        var children: [ViewNode] = []
        children.appendFlattening(self)
        return children
    }
}
