package import AppexVocabulary

extension AppexError {
    /// A failed file-system call on `path`.
    package static func fileSystem(_ action: String, _ path: String, _ error: SystemError) -> AppexError {
        AppexError(.fileSystem, "cannot \(action) \(path)", context: Context(path: path), underlyingError: error)
    }
}
