public import AppexCore

/// Why one extension is, or is not, available to a host, in words.
public struct ExtensionDiagnosis: Sendable, CustomStringConvertible {
    /// Whether the host may run the extension now.
    public let isAvailable: Bool
    /// The verdict and its reasons, one sentence a line.
    public let lines: [String]

    /// The lines, joined.
    public var description: String { lines.joined(separator: "\n") }
}

extension ExtensionDiscovery {
    /// Explains whether the extension `bundleIdentifier` is available to this host and, if not,
    /// why: not found (and where it looked), invalid (every problem), bound to another host's
    /// point, not approved, or disabled. The `appex doctor` command prints this.
    public func diagnose(bundleIdentifier: String) throws(AppexError) -> ExtensionDiagnosis {
        let snapshot = try snapshot()
        let host = snapshot.hostBundleIdentifier
        let matches = snapshot.extensions.filter { $0.bundleIdentifier == bundleIdentifier }
        var lines: [String] = []

        guard
            let found = matches.first(where: { !$0.problems.contains { $0.kind == .duplicateBundleIdentifier } })
                ?? matches.first
        else {
            // Not for this host: perhaps a bundle that binds to another host's point.
            let candidates = candidatePaths()
            let foreign = zip(candidates, load(candidates.map(\.path))).filter {
                $0.1.bundleIdentifier == bundleIdentifier
            }
            if foreign.isEmpty {
                lines.append(
                    "\(bundleIdentifier) is not available to \(host): no bundle with that identifier was found."
                )
                lines.append("Searched: \(searchDescription).")
                let count = candidates.count
                lines.append(
                    "\(count) extension bundle\(count == 1 ? "" : "s") found there in all; run `appex list --host \(hostPath) --all` to see them."
                )
            } else {
                for (_, bundle) in foreign {
                    let point = bundle.info.extensionPointIdentifier ?? "(none)"
                    let owner = ExtensionPointIdentifier(point)?.hostBundleIdentifier ?? "(unknown)"
                    lines.append(
                        "\(bundleIdentifier) is not available to \(host): the bundle at \(bundle.path) binds to extension point \(point), which belongs to host \(owner), not to \(host)."
                    )
                }
                let declared = snapshot.extensionPoints.map(\.description).joined(separator: ", ")
                lines.append("\(host) declares: \(declared.isEmpty ? "no extension points" : declared).")
            }
            return ExtensionDiagnosis(isAvailable: false, lines: lines)
        }

        return diagnosis(of: found, among: matches, host: host)
    }

    /// The diagnosis of `found`, one of `snapshot`'s extensions (for `host`), when the others of
    /// its identifier are `matches`: what ``diagnose(bundleIdentifier:)`` says of a bundle it
    /// found, without scanning again (the extension browser asks this for each row).
    package func diagnosis(
        of found: DiscoveredExtension,
        among matches: [DiscoveredExtension],
        host: String
    ) -> ExtensionDiagnosis {
        var lines: [String] = []
        let bundleIdentifier = found.bundleIdentifier ?? found.path
        let place =
            switch found.origin {
            case .host: "inside the host's Extensions/ folder"
            case .searchPath: "on APPEX_EXTENSIONS_PATH"
            case .app: "inside an app on APPEX_APPS_PATH"
            }
        switch found.state {
        case .enabled:
            let why =
                found.origin == .host
                ? "it ships with the host" : "the owner approved it for team \(found.team?.rawValue ?? "?")"
            lines.append("\(bundleIdentifier) is available to \(host): it is enabled (\(why)).")
            lines.append(
                "Found at \(found.path) (\(place)); binds to \(found.extensionPoint ?? "?"); signed by team \(found.team?.rawValue ?? "?")."
            )
        case .disabled:
            lines.append("\(bundleIdentifier) is not available to \(host): the owner disabled it.")
            lines.append(
                "Found at \(found.path) (\(place)); it is valid. Enable it with `appex enable --host \(hostPath) \(bundleIdentifier)`."
            )
        case .unapproved:
            lines.append("\(bundleIdentifier) is not available to \(host): it is not approved.")
            lines.append(
                "Found at \(found.path) (\(place)): extensions from outside the host need the owner's approval."
            )
            if let note = found.note { lines.append("It was " + note + ".") }
            lines.append("Approve it with `appex enable --host \(hostPath) \(bundleIdentifier)`.")
        case .invalid:
            lines.append(
                "\(bundleIdentifier) is not available to \(host): the bundle at \(found.path) (\(place)) is invalid."
            )
            for problem in found.problems {
                lines.append("- \(Self.category(of: problem)): \(problem)")
            }
        }
        for other in matches where other.path != found.path {
            lines.append(
                "Another bundle with the same identifier, at \(other.path), is ignored: \(found.path) takes precedence."
            )
        }
        return ExtensionDiagnosis(isAvailable: found.state == .enabled, lines: lines)
    }

    private static func category(of problem: BundleProblem) -> String {
        switch problem.kind {
        case .unsigned, .badSignature, .fileAdded, .fileModified, .fileRemoved: "signature"
        case .undeclaredExtensionPoint: "wrong extension point"
        case .duplicateBundleIdentifier: "duplicate"
        case .missingExecutable, .notExecutable: "executable"
        default: "metadata"
        }
    }
}
