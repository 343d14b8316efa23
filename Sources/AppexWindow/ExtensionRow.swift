import AppexCore
import AppexHost

/// One row of the extension browser: what the host found and concluded about one bundle, in
/// markup that shows everything the bundle supplies as text.
struct ExtensionRow: Equatable {
    /// The list's element id.
    static let listID = "extension-list"

    let found: DiscoveredExtension
    let summary: ExtensionSummary?

    /// The row's element id: stable for a bundle's path, and a plain name whatever the path holds.
    var id: String { ElementID.make("extension", for: found.path) }

    var markup: Markup {
        let name = found.localizedName
        let identifier = found.bundleIdentifier ?? "(no bundle identifier)"
        var head: [Markup] = [toggle]
        head.append(.element("strong", ["class": "name"], [.text(name)]))
        head.append(.element("code", [:], [.text(identifier)]))
        head.append(.element("span", ["class": "badge state-\(found.state.rawValue)"], [.text(found.state.rawValue)]))
        if summary?.presentsUserInterface == true {
            head.append(.element("span", ["class": "badge"], [.text("user interface")]))
        }
        var facts: [Markup] = []
        func fact(_ term: String, _ value: String) {
            facts.append(.element("dt", [:], [.text(term)]))
            facts.append(.element("dd", [:], [.text(value)]))
        }
        fact("Team", found.team?.rawValue ?? "none (unsigned or unverified)")
        fact("From", origin)
        fact("Point", found.extensionPoint ?? "none named")
        if let summary {
            fact("Entitlements", summary.entitlements.isEmpty ? "none" : summary.entitlements.joined(separator: ", "))
            fact("Sandbox", summary.sandbox)
        }
        var children: [Markup] = [
            .element("div", ["class": "extension-head"], head),
            .element("dl", ["class": "facts"], facts),
        ]
        if let reasons = summary?.reasons, !reasons.isEmpty {
            children.append(
                .element(
                    "ul",
                    ["class": "reasons"],
                    reasons.map { reason in
                        .element("li", [:], [.text(reason.hasPrefix("- ") ? String(reason.dropFirst(2)) : reason)])
                    }
                )
            )
        }
        return .element("li", ["id": id, "class": "extension card", "data-state": found.state.rawValue], children)
    }

    private var origin: String {
        switch found.origin {
        case .host: "ships inside the app"
        case .searchPath: "installed from elsewhere (APPEX_EXTENSIONS_PATH)"
        case .app: "ships inside an app (APPEX_APPS_PATH)"
        }
    }

    /// The switch: checked when enabled; none for an invalid bundle (it cannot be enabled).
    private var toggle: Markup {
        guard found.state != .invalid, let bundle = found.bundleIdentifier else {
            return .element("span", ["class": "toggle-none", "title": "invalid: it cannot be enabled"], [])
        }
        let label = "Enable \(found.localizedName)"
        if found.state == .enabled {
            return .element(
                "input",
                [
                    "type": "checkbox", "class": "toggle", "data-action": "set-enabled", "data-bundle": bundle,
                    "aria-label": label, "checked": "checked",
                ]
            )
        }
        return .element(
            "input",
            [
                "type": "checkbox", "class": "toggle", "data-action": "set-enabled", "data-bundle": bundle,
                "aria-label": label,
            ]
        )
    }
}
