import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// App group containers, opened only with the signed entitlement and by one team.
@Suite(.timed) struct AppGroupTests {
    let world: AppexTestEnvironment
    init() throws { world = try AppexTestEnvironment() }

    static let group = "group.com.example.app"

    func context(_ id: String, team: TeamIdentifier? = nil, groups: [String]) -> ProcessContext {
        ProcessContext(
            bundleIdentifier: id,
            team: team ?? world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: groups, keychainAccessGroups: [])
        )
    }

    @Test("an entitled process gets the group's private container under APPEX_HOME/AppGroups")
    func entitledContainer() throws {
        let group = try AppGroup(
            Self.group,
            context: context("com.example.hostapp", groups: [Self.group]),
            environment: world.environment
        )
        #expect(group.containerPath == world.environment.home + "/AppGroups/" + Self.group)
        var status = stat()
        #expect(stat(group.containerPath, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o700)
        // A second process of the same team, also entitled, shares it.
        let again = try AppGroup(
            Self.group,
            context: context("com.example.hostapp.widget", groups: [Self.group]),
            environment: world.environment
        )
        #expect(again.containerURL == group.containerURL)
    }

    @Test(
        "a process without the entitlement is refused with an error naming the group and the entitlement; nothing is created"
    )
    func missingEntitlement() throws {
        let error = try #require(throws: AppexError.self) {
            try AppGroup(
                Self.group,
                context: context("com.example.other", groups: ["group.com.example.else"]),
                environment: world.environment
            )
        }
        #expect(error.code == .missingEntitlement)
        #expect(error.message.contains(Self.group))
        #expect(error.message.contains("com.apple.security.application-groups"))
        #expect(error.message.contains("com.example.other"))
        #expect(!FileManager.default.fileExists(atPath: world.environment.home + "/AppGroups/" + Self.group))
    }

    @Test("an entitled process of another team is refused, and the error says the teams differ")
    func otherTeam() throws {
        _ = try AppGroup(
            Self.group,
            context: context("com.example.hostapp", groups: [Self.group]),
            environment: world.environment
        )
        let stranger = TeamIdentifier(rawValue: "ZZZZZZZZZZ")
        let error = try #require(throws: AppexError.self) {
            try AppGroup(
                Self.group,
                context: context("com.example.intruder", team: stranger, groups: [Self.group]),
                environment: world.environment
            )
        }
        #expect(error.code == .teamMismatch)
        #expect(error.message.contains("ZZZZZZZZZZ"))
        #expect(error.message.contains(world.team.teamIdentifier.rawValue))
        #expect(error.message.contains("same team"))
    }

    @Test("a context comes from the signed bundle: its entitlements count only under a valid seal")
    func contextFromBundle() throws {
        let path = try FixtureBundles.makeExtension(
            in: world.root.appending("Bundles"),
            name: "Widget",
            bundleIdentifier: "com.example.hostapp.widget",
            extensionPoint: "com.example.hostapp.HostAppFeature",
            entitlements: Entitlements(applicationGroups: [Self.group], keychainAccessGroups: []),
            signedBy: world.team
        )
        let context = try ProcessContext(bundleAt: path)
        #expect(context.bundleIdentifier == "com.example.hostapp.widget")
        #expect(context.team == world.team.teamIdentifier)
        _ = try AppGroup(Self.group, context: context, environment: world.environment)

        // Someone adds a group to the entitlements after signing: the bundle vouches for nothing.
        let tampered = Entitlements(
            applicationGroups: [Self.group, "group.com.example.bank"],
            keychainAccessGroups: []
        )
        try FixtureBundles.write(PropertyListFormat.xml.encode(tampered.propertyList), to: path + "/Entitlements.plist")
        let error = try #require(throws: AppexError.self) { try ProcessContext(bundleAt: path) }
        #expect(error.code == .untrustedProcess)
        #expect(error.message.contains(path))
    }

    @Test("names that cannot name a container are refused before anything is created; the owner opens any group")
    func namesAndOwner() throws {
        for name in ["", "..", ".hidden", "a/b", "group with space", String(repeating: "g", count: 300)] {
            let error = try #require(throws: AppexError.self) {
                try AppGroup(name, context: .owner, environment: world.environment)
            }
            #expect(error.code == .invalidName)
        }
        #expect(!FileManager.default.fileExists(atPath: world.environment.home + "/AppGroups"))
        _ = try AppGroup(Self.group, context: .owner, environment: world.environment)
    }
}
