/// One view per element of a collection, as in SwiftUI; the enclosing stack lays them out.
///
/// ```swift
/// ForEach(entry.contacts) { contact in Text(contact.name) }
/// ForEach(0..<3) { index in Text("Row \(index)") }
/// ```
public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content: View>: View {
    let data: Data
    let content: (Data.Element) -> Content

    /// A view for each element of `data`, identified by `id`.
    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content)
    {
        self.data = data
        self.content = content
    }

    /// Never called.
    public var body: Never { fatalNever() }

    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        var children: [ViewNode] = []
        for element in data { children.appendFlattening(ViewResolver.node(of: content(element))) }
        return .group(children)
    }
}

extension ForEach where Data.Element: Identifiable, ID == Data.Element.ID {
    /// A view for each element of `data`, identified by its `id`.
    public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) {
        self.data = data
        self.content = content
    }
}

extension ForEach where Data == Range<Int>, ID == Int {
    /// A view for each integer of `data`.
    public init(_ data: Range<Int>, @ViewBuilder content: @escaping (Int) -> Content) {
        self.data = data
        self.content = content
    }
}
