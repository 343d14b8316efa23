import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// API-key authentication (SAPFoundation's `APIKeyAuthenticationConfig`): the key the requests
/// it configures carry in their `APIKey` header, as SAP mobile services read it.
public struct APIKeyAuthenticationConfig: Sendable, Hashable {
    /// The keys; the first is sent.
    public var apiKeys: [String]
    /// Whether the server is reached with the key alone (no user authentication).
    public var isAPIKeyAccessOnly: Bool
    /// Whether the server allows anonymous access besides.
    public var allowAnonymousAccessFlag: Bool

    /// A configuration, with SAP's labels.
    public init(apiKeys: [String], isAPIKeyAccessOnly: Bool, allowAnonymousAccessFlag: Bool) {
        self.apiKeys = apiKeys
        self.isAPIKeyAccessOnly = isAPIKeyAccessOnly
        self.allowAnonymousAccessFlag = allowAnonymousAccessFlag
    }

    /// The header field the key travels in.
    public static let headerField = "APIKey"

    /// `request` with the first key in its ``headerField`` header (unchanged without a key).
    public func authorized(_ request: URLRequest) -> URLRequest {
        guard let key = apiKeys.first else { return request }
        var request = request
        request.setValue(key, forHTTPHeaderField: Self.headerField)
        return request
    }
}
