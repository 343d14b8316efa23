import AppexSystem

extension AppexBundle {
    /// Whether `path` names a directory (following links).
    package static func isDirectory(_ path: String) -> Bool {
        (try? Syscalls.stat(path))?.kind == .directory
    }

    /// The names in a directory, sorted, each with whether it is a directory (a link to a
    /// directory counts); empty when it cannot be read.
    package static func sortedEntriesWithKind(of path: String) -> [(name: String, isDirectory: Bool)] {
        let entries = (try? Syscalls.directoryEntryTypes(path)) ?? []
        return
            entries
            .map { entry in
                // The entry type from readdir saves a stat; links and unknown types need one.
                let isDirectory =
                    switch entry.type {
                    case .directory: true
                    case .other: false
                    case .symbolicLinkOrUnknown: Self.isDirectory(path + "/" + entry.name)
                    }
                return (name: entry.name, isDirectory: isDirectory)
            }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The names in a directory, sorted; empty when it cannot be read.
    package static func sortedEntries(of path: String) -> [String] {
        ((try? Syscalls.directoryEntries(path)) ?? []).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
