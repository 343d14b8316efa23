import Synchronization

/// The types a peer may name as generic substitutions in the distributed calls one
/// ``IPCActorSystem`` serves, by their mangled names (`_mangledTypeName`, the names the calling
/// side's ``IPCInvocationEncoder`` sends).
///
/// A name is only ever looked up here, never with `_typeByName`: the peer chooses among the types
/// this side registered, not among every type in the process.
final class IPCTypeRegistry: Sendable {
    /// A metatype: an immutable value the runtime makes once per type and shares process-wide,
    /// so handing it to another thread is safe even though `Any.Type` is not declared `Sendable`.
    private struct Entry: @unchecked Sendable {
        let name: String
        let type: Any.Type
    }

    /// In an array searched in order, not a `[String: Entry]`: a system registers a handful of
    /// types, and a dictionary's first growth made every extension's start look up
    /// `String: Hashable` by scanning every protocol conformance of the binary (its storage's
    /// metadata is made from a mangled name; docs/decisions/0168-extension-start-layout.md).
    private let entries = Mutex<[Entry]>([])

    /// Lets a peer name `type`. A type without a mangled name cannot be sent, so it is skipped.
    func register(_ type: Any.Type) {
        guard let name = _mangledTypeName(type) else { return }
        entries.withLock { entries in
            if !entries.contains(where: { $0.name == name }) { entries.append(Entry(name: name, type: type)) }
        }
    }

    /// The registered type whose mangled name is `name`, if any.
    func type(named name: String) -> Any.Type? {
        entries.withLock { entries in entries.first { $0.name == name }?.type }
    }
}
