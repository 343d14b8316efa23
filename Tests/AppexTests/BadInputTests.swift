import AppexCore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@testable import AppexHost

/// Truncated, bit-flipped and garbage plists, seals and declarations: never a crash, always a
/// clear problem, never a change to the registry.
@Suite(.timed) struct BadInputTests {
    @Test("mutated Info.plists, XML and binary, never crash the reader", arguments: PropertyListFormat.allCases)
    func infoPlistMutations(_ format: PropertyListFormat) async throws {
        let original = try Array(
            format.encode(
                FixtureBundles.extensionInfo(
                    bundleIdentifier: "com.example.fuzz",
                    extensionPoint: "com.example.hostapp.HostAppFeature",
                    name: "Fuzz"
                )
            )
        )
        var rng = SeededGenerator(state: format == .xml ? 1 : 2)
        var malformed = 0
        for round in 0..<400 {
            // CPU-heavy: give the other tests' tasks a turn on the 2-thread cooperative pool.
            if round.isMultiple(of: 16) { await Task.yield() }
            let mutation = ByteMutation.allCases[round % ByteMutation.allCases.count]
            let bytes = mutate(original, mutation, using: &rng)
            let info = BundleInfo(data: bytes, file: "/fuzz/Info.plist", role: .appExtension)
            #expect(info.problems.allSatisfy { $0.file == "/fuzz/Info.plist" && !$0.message.isEmpty })
            if info.problems.contains(where: { $0.kind == .malformedPropertyList }) { malformed += 1 }
            if mutation == .truncate && bytes.count < original.count / 2 {
                #expect(
                    !info.problems.isEmpty,
                    "a plist cut to \(bytes.count) of \(original.count) bytes read as valid"
                )
            }
        }
        #expect(malformed > 100)
    }

    @Test("a mutated seal never verifies as another team, and a truncated one never verifies at all")
    func sealMutations() async throws {
        let directory = try TemporaryDirectory()
        let team = SigningKey.generate()
        let path = try FixtureBundles.makeExtension(
            in: directory.path,
            name: "Fuzz",
            bundleIdentifier: "com.example.fuzz",
            extensionPoint: "com.example.hostapp.HostAppFeature",
            signedBy: team
        )
        let sealPath = path + "/_CodeSignature/CodeResources"
        let original = try Array(Data(contentsOf: URL(fileURLWithPath: sealPath)))
        var rng = SeededGenerator(state: 3)
        for round in 0..<300 {
            if round.isMultiple(of: 16) { await Task.yield() }
            let mutation = ByteMutation.allCases[round % ByteMutation.allCases.count]
            let bytes = mutate(original, mutation, using: &rng)
            try FixtureBundles.write(Data(bytes), to: sealPath)
            let bundle = AppexBundle.load(at: path)
            if bundle.isValid {
                // Only a change that leaves the same signed content (say, whitespace) may pass.
                #expect(bundle.team == team.teamIdentifier)
                #expect(mutation != .truncate && mutation != .garbage)
            } else {
                #expect(
                    bundle.problems.allSatisfy {
                        [.badSignature, .fileAdded, .fileModified, .fileRemoved].contains($0.kind)
                    }
                )
                #expect(bundle.problems.allSatisfy { $0.file.hasPrefix(path) })
            }
        }
    }

    @Test("garbage everywhere in a host and its extensions: invalid with reasons, registry untouched")
    func garbageBundlesLeaveRegistryAlone() async throws {
        let fixture = try HostFixture()
        try fixture.addExtension("Good", id: "com.example.good", inHost: false)
        let bad = try fixture.addExtension("Bad", id: "com.example.bad", inHost: false)
        let discovery = try fixture.discovery()
        try discovery.setEnabled(true, bundleIdentifier: "com.example.good")
        let before = try discovery.registry.decisions(host: HostFixture.hostIdentifier)

        var rng = SeededGenerator(state: 4)
        let infoOriginal = try Array(Data(contentsOf: URL(fileURLWithPath: bad + "/Info.plist")))
        for round in 0..<40 {
            if round.isMultiple(of: 4) { await Task.yield() }
            let bytes = mutate(infoOriginal, ByteMutation.allCases[round % 4], using: &rng)
            try FixtureBundles.write(Data(bytes), to: bad + "/Info.plist")
            try FixtureBundles.write(
                Data(mutate(Array("<plist>".utf8), .garbage, using: &rng)),
                to: bad + "/Entitlements.plist"
            )
            let snapshot = try discovery.snapshot()
            let found = snapshot.extensions.filter { $0.path == bad }
            #expect(found.allSatisfy { $0.state == .invalid && !$0.problems.isEmpty })
            #expect(throws: AppexError.self) { try discovery.setEnabled(true, bundleIdentifier: "com.example.bad") }
            #expect(snapshot.extensions.first { $0.bundleIdentifier == "com.example.good" }?.state == .enabled)
        }
        #expect(try discovery.registry.decisions(host: HostFixture.hostIdentifier) == before)

        // A garbage extension point file makes the host invalid, naming the file.
        let pointFile = fixture.hostPath + "/ExtensionPoints/HostAppFeature.appextensionpoint"
        try FixtureBundles.write(Data([0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0x30, 0x30, 0xff]), to: pointFile)
        let error = try #require(throws: AppexError.self) { try fixture.discovery() }
        #expect(error.problems.contains { $0.kind == .malformedPropertyList && $0.file == pointFile })

        // And the CLI says so with exit code 1, not a crash.
        let output = try await appex("validate", bad, in: fixture.world)
        #expect(output.status == 1)
        #expect(output.standardOutput.contains(bad))
    }

    @Test("a bundle path that is a file, or missing, is a problem, not a crash")
    func notABundle() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.appending("file.appex")
        try FixtureBundles.write(Data("x".utf8), to: file)
        for path in [file, directory.appending("missing.appex")] {
            let bundle = AppexBundle.load(at: path)
            #expect(bundle.problems.map(\.kind) == [.unreadableFile])
            #expect(bundle.problems.first?.file == path)
        }
    }
}
