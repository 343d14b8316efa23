extension AppexBundle {
    /// Warnings about this extension's sharing entitlements against `host`'s: one for each of
    /// `com.apple.security.application-groups` and `keychain-access-groups` whose groups are not
    /// exactly the host's, naming the extension's `Entitlements.plist`, the key and both lists.
    ///
    /// Warnings, not problems: on Apple's platforms the rule is the team's, not the host's (an
    /// extension may share a group with another app of its team), so a bundle that differs is
    /// valid. What a difference costs is that host and extension do not share the data the
    /// group holds; `appex validate`, `appex bundle`, `appex sign` and the appex-bundle plugin
    /// print these beside a valid bundle.
    ///
    /// App groups are compared as sets. Keychain access groups must also list the same group
    /// first: the first is the default access group, where a process that names none keeps its
    /// items (seed 000's tokens), so a different first group splits host and extension.
    /// Empty for a host app, when both sides list the same groups (none counts), and for an
    /// extension that lists neither app groups nor keychain groups: it shares nothing with its
    /// host (a translator that needs none of its data), so nothing is split.
    public func sharedEntitlementWarnings(against host: AppexBundle) -> [BundleProblem] {
        guard kind == .appExtension,
            !(entitlements.applicationGroups.isEmpty && entitlements.keychainAccessGroups.isEmpty)
        else { return [] }
        var problems: [BundleProblem] = []
        let file = path + "/" + File.entitlements
        func list(_ groups: [String]) -> String { groups.isEmpty ? "none" : groups.joined(separator: ", ") }
        let mine = entitlements.applicationGroups
        let hosts = host.entitlements.applicationGroups
        if Set(mine) != Set(hosts) {
            problems.append(
                BundleProblem(
                    .entitlementMismatch,
                    file: file,
                    key: Entitlements.Key.applicationGroups,
                    message:
                        "this extension has app groups \(list(mine)) but its host \(host.bundleIdentifier ?? host.path) has \(list(hosts)) (\(Entitlements.Key.applicationGroups)): list the same groups in both so that they share defaults and containers"
                )
            )
        }
        let myKeychain = entitlements.keychainAccessGroups
        let hostKeychain = host.entitlements.keychainAccessGroups
        if Set(myKeychain) != Set(hostKeychain) || myKeychain.first != hostKeychain.first {
            problems.append(
                BundleProblem(
                    .entitlementMismatch,
                    file: file,
                    key: Entitlements.Key.keychainAccessGroups,
                    message:
                        "this extension has keychain access groups \(list(myKeychain)) but its host \(host.bundleIdentifier ?? host.path) has \(list(hostKeychain)) (\(Entitlements.Key.keychainAccessGroups)): list the same groups, the same one first, so that they share keychain items"
                )
            )
        }
        return problems
    }
}
