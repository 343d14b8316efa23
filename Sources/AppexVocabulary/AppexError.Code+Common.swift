// The codes of the failures any layer may report.
extension AppexError.Code {
    /// A file or directory could not be read or written.
    public static var fileSystem: Self { .init("file-system") }
    /// The file system or database under a store failed, or a token storage did.
    public static var storage: Self { .init("storage") }
    /// A message or value could not be encoded or decoded.
    public static var coding: Self { .init("coding") }
    /// A stored value cannot be read: it was written outside Appex or damaged (it may hold
    /// what Appex refuses to read, such as a set). Only that key is affected.
    public static var corruptValue: Self { .init("corrupt-value") }
    /// The extension's process could not be started or did not complete the handshake; inside
    /// the extension, the process could not take up its host's connection.
    public static var launchFailed: Self { .init("launch-failed") }
    /// A group or suite name that cannot name a container.
    public static var invalidName: Self { .init("invalid-name") }
    /// The calling task was cancelled; the peer was told to stop.
    public static var cancelled: Self { .init("cancelled") }
    /// A call's deadline passed before the reply came; the peer was told to stop.
    public static var deadlineExceeded: Self { .init("deadline-exceeded") }
    /// The peer closed the connection (on the host, a call to an extension process that ends
    /// is `interrupted` instead).
    public static var closed: Self { .init("closed") }
    /// The peer broke the wire protocol; its connection was closed.
    public static var protocolViolation: Self { .init("protocol-violation") }
    /// The peer's handler failed; the message carries its words.
    public static var remoteFailure: Self { .init("remote-failure") }
    /// A value that cannot be stored so that every process can read it back (too many
    /// elements or too deeply nested for the property-list reader's limits).
    public static var invalidValue: Self { .init("invalid-value") }
    /// The request is not allowed in the current state.
    public static var refused: Self { .init("refused") }
    /// Nothing by that name was found.
    public static var notFound: Self { .init("not-found") }
}
