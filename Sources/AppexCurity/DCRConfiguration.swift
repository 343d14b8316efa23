public import AppexAuth
public import Foundation

/// The HAAPI SDK's dynamic client registration settings: the template client the registration
/// names, where clients register (RFC 7591), and where the registered client is kept, so that
/// the host app registers it and its extensions refresh tokens as that client.
public struct DCRConfiguration: Sendable {
    /// The client whose settings a registration copies (`software_id` of the request).
    public let templateClientId: String
    /// The registration endpoint.
    public let clientRegistrationEndpointUrl: URL
    /// Where the registered client is kept (the host writes it, extensions read it).
    public let storage: any Storage

    /// Registration settings.
    public init(templateClientId: String, clientRegistrationEndpointUrl: URL, storage: any Storage) {
        self.templateClientId = templateClientId
        self.clientRegistrationEndpointUrl = clientRegistrationEndpointUrl
        self.storage = storage
    }

    /// The client registered with these settings, when the host stored one.
    public var registeredClient: RegisteredClient? {
        guard let data = try? storage.read(key: RegisteredClient.storageKey) else { return nil }
        return try? JSONDecoder().decode(RegisteredClient.self, from: data)
    }
}
