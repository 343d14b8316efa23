import AppexCore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// The `appex` executable, run as a real process.
@Suite(.timed) struct CLITests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture() }

    func list(_ extra: String...) async throws -> [ListedExtension] {
        let output = try await run(
            appexExecutable,
            ["list", "--host", fixture.hostPath, "--json"] + extra,
            environment: fixture.world.processVariables
        )
        #expect(output.status == 0, "\(output.standardError)")
        return try JSONDecoder().decode([ListedExtension].self, from: Data(output.standardOutput.utf8))
    }

    @Test("list --json has the documented fields; invalid bundles only with --all")
    func listJSON() async throws {
        let translate = try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        try fixture.addExtension("Broken", id: "com.example.broken", inHost: false, unsigned: true)
        let listed = try await list()
        #expect(listed.map(\.bundleIdentifier) == ["com.example.summarize", "com.example.translate"])
        #expect(listed.map(\.state) == ["unapproved", "enabled"])
        #expect(listed[1].path == translate)
        #expect(listed[1].team == fixture.world.team.teamIdentifier.rawValue)
        #expect(listed[1].extensionPoint == HostFixture.point)
        #expect(listed[1].problems == [])
        let all = try await list("--all")
        let broken = try #require(all.first { $0.bundleIdentifier == "com.example.broken" })
        #expect(broken.state == "invalid")
        #expect(broken.team == nil)
        #expect(broken.problems.count == 1)
        #expect(broken.problems[0].contains("not signed"))
        #expect(try await list("--point", "com.example.hostapp.Other").isEmpty)
    }

    @Test("enable and disable change the state; an unknown id exits 1 naming it")
    func enableDisable() async throws {
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        var output = try await appex("enable", "--host", fixture.hostPath, "com.example.summarize", in: fixture.world)
        #expect(output.status == 0)
        #expect(try await list().map(\.state) == ["enabled"])
        output = try await appex("disable", "--host", fixture.hostPath, "com.example.summarize", in: fixture.world)
        #expect(output.status == 0)
        #expect(try await list().map(\.state) == ["disabled"])
        output = try await appex("enable", "--host", fixture.hostPath, "com.example.missing", in: fixture.world)
        #expect(output.status == 1)
        #expect(output.standardError.contains("com.example.missing"))
    }

    @Test("several CLI processes deciding at once all land, and nothing is lost")
    func concurrentCLI() async throws {
        let ids = (0..<12).map { "com.example.ext\($0)" }
        for (index, id) in ids.enumerated() { try fixture.addExtension("Ext\(index)", id: id, inHost: false) }
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for id in ids {
                group.addTask {
                    let output = try await appex("enable", "--host", fixture.hostPath, id, in: fixture.world)
                    #expect(output.status == 0, "\(output.standardError)")
                    return output.status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 0, count: ids.count))
        #expect(try await list().allSatisfy { $0.state == "enabled" })
    }

    @Test("validate exits 0 for a valid host and 1 listing every problem of each bundle")
    func validate() async throws {
        try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        var output = try await appex("validate", fixture.hostPath, in: fixture.world)
        #expect(output.status == 0, "\(output.standardOutput)")
        let broken = try FixtureBundles.makeExtension(
            in: fixture.hostExtensions,
            name: "Broken",
            bundleIdentifier: "unused",
            extensionPoint: "com.example.hostapp.Undeclared",
            info: ["CFBundleIdentifier": .string("$(PRODUCT_BUNDLE_IDENTIFIER)")]
        )
        output = try await appex("validate", fixture.hostPath, in: fixture.world)
        #expect(output.status == 1)
        #expect(
            output.standardOutput.contains("unexpanded build setting PRODUCT_BUNDLE_IDENTIFIER in CFBundleIdentifier")
        )
        #expect(
            output.standardOutput.contains(
                "extension point com.example.hostapp.Undeclared is not declared by host com.example.hostapp"
            )
        )
        #expect(output.standardOutput.contains("not signed"))
        output = try await appex("validate", broken, in: fixture.world)
        #expect(output.status == 1)
        #expect(output.standardOutput.contains("3 problems"))
    }

    @Test("inspect --json shows identity, point, entitlements and team")
    func inspect() async throws {
        let path = try FixtureBundles.makeExtension(
            in: fixture.hostExtensions,
            name: "Translate",
            bundleIdentifier: "com.example.translate",
            extensionPoint: HostFixture.point,
            format: .binary,
            entitlements: Entitlements(
                applicationGroups: ["group.com.example.app"],
                keychainAccessGroups: ["TEAM.com.example.shared"]
            ),
            signedBy: fixture.world.team
        )
        let output = try await appex("inspect", path, "--json", in: fixture.world)
        #expect(output.status == 0)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any]
        )
        #expect(object["bundleIdentifier"] as? String == "com.example.translate")
        #expect(object["extensionPoint"] as? String == HostFixture.point)
        #expect(object["applicationGroups"] as? [String] == ["group.com.example.app"])
        #expect(object["keychainAccessGroups"] as? [String] == ["TEAM.com.example.shared"])
        #expect(object["team"] as? String == fixture.world.team.teamIdentifier.rawValue)
        #expect(object["valid"] as? Bool == true)
    }

    @Test("keygen writes a private key and prints its team; sign seals a bundle with it")
    func keygenAndSign() async throws {
        let key = fixture.world.root.appending("team.key")
        var output = try await appex("keygen", "--output", key, in: fixture.world)
        #expect(output.status == 0)
        let team = output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try SigningKey(contentsOf: key).teamIdentifier.rawValue == team)
        #expect(try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int == 0o600)
        output = try await appex("keygen", "--output", key, in: fixture.world)
        #expect(output.status == 1)

        let path = try fixture.addExtension("Translate", id: "com.example.translate", inHost: true, unsigned: true)
        #expect(try await list().isEmpty)
        output = try await appex("sign", path, "--key", key, in: fixture.world)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(try await list().map(\.team) == [team])
    }

    @Test("doctor explains availability and exits 0 only when available")
    func doctor() async throws {
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        var output = try await appex("doctor", "--host", fixture.hostPath, "com.example.summarize", in: fixture.world)
        #expect(output.status == 1)
        #expect(output.standardOutput.contains("not approved"))
        _ = try await appex("enable", "--host", fixture.hostPath, "com.example.summarize", in: fixture.world)
        output = try await appex("doctor", "--host", fixture.hostPath, "com.example.summarize", in: fixture.world)
        #expect(output.status == 0)
        #expect(output.standardOutput.contains("is available"))
    }

    @Test(
        "doctor shows the sandbox an extension would get: its bundle, its container, no network, the kernel's facilities"
    )
    func doctorShowsSandbox() async throws {
        let path = try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: true)
        let output = try await appex("doctor", "--host", fixture.hostPath, "com.example.summarize", in: fixture.world)
        let text = output.standardOutput
        #expect(text.contains("sandbox (what com.example.summarize may do when launched):"), "\(text)")
        #expect(text.contains("read+execute: \(path) (its bundle)"))
        #expect(
            text.contains(
                "read+write: \(fixture.world.environment.home)/Containers/com.example.summarize (its container)"
            )
        )
        #expect(text.contains("network: none") && text.contains("helper processes: refused"))
        #expect(text.contains("no Unix (pathname or abstract), netlink, packet or raw socket (EPERM)"), "\(text)")
        #expect(text.contains("kernel: Landlock ABI"))
        #expect(!text.contains(fixture.world.environment.keysDirectory))
    }
}
