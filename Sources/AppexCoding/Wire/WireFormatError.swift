/// Why bytes could not be read as the message the reader expected: what was being read, and at
/// which byte.
package struct WireFormatError: Error, CustomStringConvertible, Sendable {
    /// What was wrong, in words.
    package let message: String
    /// The byte offset in the input where it was found.
    package let offset: Int

    package init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }

    package var description: String { "\(message) (at byte \(offset))" }
}
