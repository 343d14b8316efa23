import AppexCore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// A host and the extensions inside it must list the same app groups and keychain access groups
/// (seed 000's app and widget share `group.com.salesforce.mobilesyncexplorer` and one keychain
/// group): `appex validate`, `bundle` and `sign` warn about each extension that does not.
@Suite(.timed) struct SharedEntitlementsValidationTests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture() }

    static let group = "group.com.example.app"
    static let second = "group.com.example.second"
    static let keychain = "TEAM.com.example.shared"
    static let shared = Entitlements(applicationGroups: [group, second], keychainAccessGroups: [keychain])

    /// Gives the host `entitlements` and signs it again.
    func entitle(host entitlements: Entitlements) throws {
        try FixtureBundles.write(
            PropertyListFormat.xml.encode(entitlements.propertyList),
            to: fixture.hostPath + "/" + AppexBundle.File.entitlements
        )
        try AppexBundle.sign(at: fixture.hostPath, with: fixture.world.team)
    }

    @discardableResult
    func addExtension(_ name: String, _ entitlements: Entitlements) throws -> String {
        try FixtureBundles.makeExtension(
            in: fixture.hostExtensions,
            name: name,
            bundleIdentifier: "com.example.hostapp." + name.lowercased(),
            extensionPoint: HostFixture.point,
            entitlements: entitlements,
            signedBy: fixture.world.team
        )
    }

    @Test(
        "each extension whose app groups or keychain groups differ from its host's is a problem naming its bundle, the key and both sides' groups; a matching one is not"
    )
    func problemsNameBothSides() throws {
        try entitle(host: Self.shared)
        let host = AppexBundle.load(at: fixture.hostPath)
        let matching = AppexBundle.load(at: try addExtension("Matching", Self.shared), as: .appExtension)
        #expect(matching.sharedEntitlementWarnings(against: host).isEmpty)
        // App groups in another order are the same groups.
        let reordered = Entitlements(
            applicationGroups: [Self.second, Self.group],
            keychainAccessGroups: [Self.keychain]
        )
        #expect(
            AppexBundle.load(at: try addExtension("Same", reordered), as: .appExtension)
                .sharedEntitlementWarnings(against: host).isEmpty
        )

        // An extension that shares nothing (no group of either kind) is not split from its host.
        #expect(
            AppexBundle.load(at: try addExtension("Alone", .none), as: .appExtension)
                .sharedEntitlementWarnings(against: host).isEmpty
        )

        let groupPath = try addExtension(
            "OtherGroup",
            Entitlements(applicationGroups: ["group.com.example.other"], keychainAccessGroups: [Self.keychain])
        )
        let problems = AppexBundle.load(at: groupPath, as: .appExtension).sharedEntitlementWarnings(against: host)
        #expect(problems.count == 1)
        let problem = try #require(problems.first)
        #expect(problem.kind == .entitlementMismatch)
        #expect(problem.file == groupPath + "/Entitlements.plist")
        #expect(problem.key == Entitlements.Key.applicationGroups)
        #expect(
            problem.message.contains("has app groups group.com.example.other")
                && problem.message.contains("has \(Self.group), \(Self.second)")
        )

        // Keychain groups: the same set, but another first (default) group, is a mismatch too.
        let keychainPath = try addExtension(
            "OtherFirst",
            Entitlements(
                applicationGroups: [Self.group],
                keychainAccessGroups: ["TEAM.com.example.widget", Self.keychain]
            )
        )
        try entitle(
            host: Entitlements(
                applicationGroups: [Self.group],
                keychainAccessGroups: [Self.keychain, "TEAM.com.example.widget"]
            )
        )
        let keychainProblems = AppexBundle.load(at: keychainPath, as: .appExtension)
            .sharedEntitlementWarnings(against: AppexBundle.load(at: fixture.hostPath))
        #expect(keychainProblems.map(\.key) == [Entitlements.Key.keychainAccessGroups])
        #expect(keychainProblems.first?.kind == .entitlementMismatch)
    }

    @Test(
        "appex validate HOST.app warns about an extension whose groups differ from its host's, naming both sides, and exits 0: Apple's rule is the team's, not the host's"
    )
    func validateWarnsAboutMismatch() async throws {
        try entitle(host: Self.shared)
        let matching = try addExtension("Matching", Self.shared)
        var output = try await appex("validate", fixture.hostPath, in: fixture.world)
        #expect(output.status == 0, "\(output.standardOutput)")
        #expect(!output.standardOutput.contains("warning:"), "\(output.standardOutput)")

        let widget = try addExtension(
            "Widget",
            Entitlements(applicationGroups: [Self.group, "group.com.example.extra"], keychainAccessGroups: [])
        )
        output = try await appex("validate", fixture.hostPath, in: fixture.world)
        #expect(output.status == 0, "\(output.standardOutput)")
        let text = output.standardOutput
        #expect(text.contains("\(widget): valid extension"), "\(text)")
        #expect(text.contains("\(matching): valid extension"), "\(text)")
        let lines = text.split(separator: "\n").filter {
            $0.hasPrefix("  warning: ") && $0.contains(widget + "/Entitlements.plist")
        }
        #expect(
            lines.contains {
                $0.contains("app groups group.com.example.app, group.com.example.extra")
                    && $0.contains("has \(Self.group), \(Self.second) (com.apple.security.application-groups)")
            },
            "\(text)"
        )
        #expect(
            lines.contains {
                $0.contains("keychain access groups none")
                    && $0.contains("has \(Self.keychain) (keychain-access-groups)")
            },
            "\(text)"
        )
        // The extension alone is checked against the host it sits in.
        output = try await appex("validate", widget, in: fixture.world)
        #expect(output.status == 0 && output.standardOutput.contains("  warning: "), "\(output.standardOutput)")
    }

    @Test(
        "appex sign and appex bundle make an extension whose groups differ from its host's, and warn on standard error"
    )
    func signAndBundleWarn() async throws {
        try entitle(host: Self.shared)
        let other = Entitlements(applicationGroups: ["group.com.example.other"], keychainAccessGroups: [Self.keychain])
        let widget = try addExtension("Other", other)
        let key = fixture.world.root.appending("team.key")
        try fixture.world.team.write(to: key)
        let signed = try await appex("sign", widget, "--key", key, in: fixture.world)
        #expect(signed.status == 0, "\(signed.standardError)")
        #expect(signed.standardOutput.contains("signed \(widget)"), "\(signed.standardOutput)")
        #expect(
            signed.standardError.contains("appex: warning: ")
                && signed.standardError.contains("group.com.example.other"),
            "\(signed.standardError)"
        )

        let entitlementsFile = fixture.world.root.appending("other.entitlements")
        try FixtureBundles.write(PropertyListFormat.xml.encode(other.propertyList), to: entitlementsFile)
        let made = try await appex(
            "bundle",
            "--executable",
            echoExecutable,
            "--binding",
            HostFixture.point.description,
            "--output",
            fixture.hostExtensions + "/Remade.appex",
            "--entitlements",
            entitlementsFile,
            "--key",
            key,
            in: fixture.world
        )
        #expect(made.status == 0, "\(made.standardError)")
        #expect(made.standardOutput.hasPrefix("made "), "\(made.standardOutput)")
        #expect(made.standardError.contains("appex: warning: "), "\(made.standardError)")
    }
}
