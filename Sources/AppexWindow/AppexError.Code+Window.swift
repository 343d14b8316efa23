public import AppexVocabulary

// The codes of windows.
extension AppexError.Code {
    /// A window could not serve: its address could not be bound, or its server stopped with an
    /// error; the message says which.
    public static var windowFailed: Self { .init("window-failed") }
}
