package import AppexCore

/// What an extension browser shows of one extension beyond its discovery: what it is entitled
/// to, the sandbox it runs in, and, when it cannot run, `appex doctor`'s reasons.
package struct ExtensionSummary: Sendable, Hashable {
    /// Its entitlements, in words: `app group …`, `keychain group …`, `network client`,
    /// `network server`, and any other key it claims.
    package var entitlements: [String]
    /// Its sandbox tier, in words: `standard` or `enhanced security`, and its network.
    package var sandbox: String
    /// Whether its point presents user interface (`EXPresentsUserInterface`).
    package var presentsUserInterface: Bool
    /// Why it cannot run now (`appex doctor`'s lines); empty when it is enabled.
    package var reasons: [String]
}

extension ExtensionDiscovery {
    /// The summary of `found`, one of `extensions` (what a snapshot found for `host`, the host's
    /// bundle as ``host()`` read it).
    package func summary(
        of found: DiscoveredExtension,
        among extensions: [DiscoveredExtension],
        host: AppexBundle
    )
        -> ExtensionSummary
    {
        let bundle = currentBundle(at: found.path) ?? AppexBundle.load(at: found.path, as: .appExtension)
        let entitlements = bundle.entitlements
        var words = entitlements.applicationGroups.map { "app group \($0)" }
        words += entitlements.keychainAccessGroups.map { "keychain group \($0)" }
        let values = entitlements.values
        if values[Entitlements.Key.networkClient] == .boolean(true) { words.append("network client") }
        if values[Entitlements.Key.networkServer] == .boolean(true) { words.append("network server") }
        let named: Set<String> = [
            Entitlements.Key.applicationGroups, Entitlements.Key.keychainAccessGroups,
            Entitlements.Key.networkClient, Entitlements.Key.networkServer,
        ]
        words += values.keys.filter { !named.contains($0) }.sorted()

        let point = host.extensionPoints.first { $0.identifier.description == found.extensionPoint }
        let enhanced = point?.requiresEnhancedSecurity ?? false
        let settings = point?.sandbox ?? ExtensionPointDeclaration.SandboxSettings()
        let network: String
        if enhanced && !settings.allowsNetwork {
            network = "no network"
        } else if values[Entitlements.Key.networkServer] == .boolean(true) {
            network = "network client and server"
        } else if values[Entitlements.Key.networkClient] == .boolean(true) {
            network = "network client"
        } else {
            network = "no network"
        }
        let tier = enhanced ? "enhanced security" : "standard"

        var reasons: [String] = []
        if found.state != .enabled {
            let matches = extensions.filter {
                $0.bundleIdentifier != nil && $0.bundleIdentifier == found.bundleIdentifier
            }
            reasons = diagnosis(of: found, among: matches, host: host.bundleIdentifier ?? hostPath).lines
        }
        return ExtensionSummary(
            entitlements: words,
            sandbox: "\(tier), \(network)",
            presentsUserInterface: point?.presentsUserInterface ?? false,
            reasons: reasons
        )
    }
}
