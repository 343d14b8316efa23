/// Where a value is in the value being coded, kept as a linked list built only when needed.
indirect enum CompactPath {
    case root
    case key(any CodingKey, parent: CompactPath)
    case index(Int, parent: CompactPath)

    func appending(_ key: some CodingKey) -> CompactPath { .key(key, parent: self) }
    func appending(index: Int) -> CompactPath { .index(index, parent: self) }

    /// The path as `Codable` reports it.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root:
                return keys.reversed()
            case .key(let key, let parent):
                keys.append(key)
                node = parent
            case .index(let index, let parent):
                keys.append(CompactIndexKey(index))
                node = parent
            }
        }
    }

    /// The path for people: `user.name`, `items[2].id`, or "the top level".
    var description: String { compactDescribePath(keys) }
}

/// Formats a coding path for an error message.
func compactDescribePath(_ keys: [any CodingKey]) -> String {
    guard !keys.isEmpty else { return "the top level" }
    var text = ""
    for key in keys {
        if let index = key as? CompactIndexKey {
            text += "[\(index.index)]"
        } else {
            if !text.isEmpty { text += "." }
            text += key.stringValue
        }
    }
    return text
}

/// The coding key of an array element.
struct CompactIndexKey: CodingKey {
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.index = intValue }
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}

/// A coding key with only a string, such as `super`.
struct CompactStringKey: CodingKey {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    var intValue: Int? { nil }
    static let `super` = CompactStringKey(stringValue: "super")
}
