import Foundation

/// A contact as the contacts API serves it and the store keeps it.
public struct Contact: Codable, Sendable, Hashable, Identifiable {
    /// The server's identifier.
    public var id: String
    /// The name to show; may hold any characters (renderers escape it).
    public var name: String
    public var email: String
    public var phone: String
    public var company: String
    public var note: String
    /// When the server last changed it, ISO 8601 with microseconds (`2026-01-01T00:00:00.000000Z`):
    /// what an incremental sync asks from.
    public var modified: String

    /// A contact.
    public init(
        id: String,
        name: String,
        email: String = "",
        phone: String = "",
        company: String = "",
        note: String = "",
        modified: String
    ) {
        self.id = id
        self.name = name
        self.email = email
        self.phone = phone
        self.company = company
        self.note = note
        self.modified = modified
    }
}
