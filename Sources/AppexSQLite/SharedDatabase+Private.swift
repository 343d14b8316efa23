import AppexSystem
package import AppexVocabulary
package import GRDB

extension SharedDatabase {
    /// Opens a store's file as ``open(path:label:version:schema:secureDelete:syncsEveryCommit:)``
    /// does, after making it private to the user: its folder and the folder's parents 0700, the
    /// file 0600 (SQLite gives its `-wal` and `-shm` files the database file's mode). Every store
    /// opens its file this way.
    ///
    /// - Parameters:
    ///   - what: the store as its errors name it (`the keychain`, `the defaults`).
    ///   - code: the code of a failure to open it (`storage`, or the registry's `registry`).
    ///   - context: what its errors are about (the path is added).
    /// - Throws: ``/AppexVocabulary/AppexError`` `code`: "cannot make WHAT PATH" when the folder or
    ///   the file cannot be made (the system's error underneath), "cannot open WHAT PATH" when
    ///   SQLite cannot open it or set its schema.
    package static func openPrivate(
        path: String,
        naming what: String,
        code: AppexError.Code = .storage,
        context: AppexError.Context = AppexError.Context(),
        label: String,
        version: Int,
        secureDelete: Bool = false,
        syncsEveryCommit: Bool = true,
        schema: (Int) -> String
    ) throws(AppexError) -> DatabaseQueue {
        var context = context
        context.path = path
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        do {
            if !directory.isEmpty { try Syscalls.makeDirectories(directory, mode: 0o700) }
            try Syscalls.createFileIfMissing(path, mode: 0o600)
        } catch {
            throw AppexError(code, "cannot make \(what) \(path)", context: context, underlyingError: error)
        }
        do {
            return try open(
                path: path,
                label: label,
                version: version,
                schema: schema,
                secureDelete: secureDelete,
                syncsEveryCommit: syncsEveryCommit
            )
        } catch {
            throw AppexError(code, "cannot open \(what) \(path)", context: context, underlyingError: error)
        }
    }
}
