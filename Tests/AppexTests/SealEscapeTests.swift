import AppexCore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@testable import AppexHost

/// Ways a file could escape a seal, or a scan could be made to hang: each is refused by name.
@Suite(.timed) struct SealEscapeTests {
    let directory: TemporaryDirectory
    let team = SigningKey.generate()

    init() throws { directory = try TemporaryDirectory() }

    func signedExtension(_ name: String = "E") throws -> String {
        try FixtureBundles.makeExtension(
            in: directory.path,
            name: name,
            bundleIdentifier: "com.example.\(name.lowercased())",
            extensionPoint: "com.example.hostapp.HostAppFeature",
            signedBy: team
        )
    }

    @Test(
        "a link that leads out of the bundle cannot be signed and makes the bundle invalid",
        arguments: ["/tmp/outside", "../outside", "Sub/../../x"]
    )
    func escapingLinks(_ target: String) throws {
        let path = try signedExtension()
        try FileManager.default.createSymbolicLink(atPath: path + "/Link", withDestinationPath: target)
        let error = try #require(throws: AppexError.self) { try AppexBundle.sign(at: path, with: team) }
        #expect(error.problems.map(\.kind) == [.unsupportedFile])
        #expect(error.message.contains("Link"))
        let problems = AppexBundle.load(at: path).problems
        #expect(problems.contains { $0.kind == .unsupportedFile && $0.file == path + "/Link" })
    }

    @Test("an executable that is a link out of the bundle is refused")
    func executableLinkOutside() throws {
        let outside = directory.appending("outside-exe")
        try FixtureBundles.writeExecutable(at: outside)
        let path = try FixtureBundles.makeExtension(
            in: directory.path,
            name: "E",
            bundleIdentifier: "com.example.e",
            extensionPoint: "com.example.hostapp.HostAppFeature"
        )
        try FileManager.default.removeItem(atPath: path + "/Extension")
        try FileManager.default.createSymbolicLink(atPath: path + "/Extension", withDestinationPath: outside)
        #expect(throws: AppexError.self) { try AppexBundle.sign(at: path, with: team) }
        #expect(AppexBundle.load(at: path).problems.contains { $0.kind == .unsupportedFile })
    }

    @Test("a link that stays inside the bundle is sealed and verified")
    func innerLink() throws {
        let path = try signedExtension()
        try FileManager.default.createDirectory(atPath: path + "/Sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path + "/Sub/Exec", withDestinationPath: "../Extension")
        try AppexBundle.sign(at: path, with: team)
        #expect(AppexBundle.load(at: path).problems == [])
    }

    @Test("only a host skips nested Extensions/*.appex: inside an extension they are sealed files")
    func nestedExtensionsInsideAnExtension() throws {
        let path = try signedExtension()
        try FileManager.default.createDirectory(
            atPath: path + "/Extensions/Hidden.appex",
            withIntermediateDirectories: true
        )
        try FixtureBundles.write(Data("evil".utf8), to: path + "/Extensions/Hidden.appex/evil.so")
        let problems = AppexBundle.load(at: path).problems
        #expect(problems.contains { $0.kind == .fileAdded && $0.file == path + "/Extensions/Hidden.appex/evil.so" })
    }

    @Test("a file name that is not UTF-8 is named and refused, never confused with another")
    func nonUTF8Name() throws {
        let path = try signedExtension()
        let name = path + "/a\u{FFFD}"
        try FixtureBundles.write(Data("x".utf8), to: name)
        try AppexBundle.sign(at: path, with: team)
        // a\xff: a name whose lossy decoding equals the sealed one's.
        let raw = Array((path + "/a").utf8) + [0xff, 0]
        let fd = raw.withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
        }
        #expect(fd >= 0)
        close(fd)
        let problems = AppexBundle.load(at: path).problems
        #expect(
            problems.contains {
                $0.kind == .unsupportedFile && $0.message.contains("not valid UTF-8") && $0.file.hasSuffix("a\\xff")
            }
        )
    }

    @Test("a seal over the size limit is refused before it is parsed")
    func hugeSeal() throws {
        let path = try signedExtension()
        var seal = Array("appex-seal-1\n".utf8)
        seal += [UInt8](repeating: 0x0a, count: 5 << 20)
        seal += Array(("signature " + String(repeating: "0", count: 128) + "\n").utf8)
        try FixtureBundles.write(Data(seal), to: path + "/_CodeSignature/CodeResources")
        let start = ContinuousClock.now
        let problems = AppexBundle.load(at: path).problems
        #expect(problems.map(\.kind) == [.badSignature])
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test("a tiny binary plist that expands exponentially is refused at once")
    func exponentialPlist() throws {
        // Object i (i < 40) is the array [i+1, i+1]; object 40 is the integer 0; the top is a
        // dictionary {"k": object 0}. 2^40 values if followed naively.
        let depth = 40
        var objects: [[UInt8]] = []
        for index in 0..<depth { objects.append([0xA2, UInt8(index + 1), UInt8(index + 1)]) }
        objects.append([0x10, 0x00])  // 40: integer 0
        objects.append([0x51, 0x6B])  // 41: "k"
        objects.append([0xD1, 41, 0])  // 42: {"k": 0}
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count - 1)]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let start = ContinuousClock.now
        let info = BundleInfo(data: bytes, file: "/x/Info.plist", role: .appExtension)
        #expect(info.problems.map(\.kind) == [.malformedPropertyList])
        #expect(info.problems.first?.message.contains("more than 100000 values") == true)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test("an extension inside the host but signed by another team is not enabled by default")
    func foreignTeamInsideHost() throws {
        let fixture = try HostFixture()
        try fixture.addExtension("Planted", id: "com.example.planted", inHost: true, signedBy: SigningKey.generate())
        let found = try #require(try fixture.discovery().snapshot().extensions.first)
        #expect(found.state == .unapproved)
        #expect(found.note?.contains("not the host's team") == true)
        try fixture.discovery().setEnabled(true, bundleIdentifier: "com.example.planted")
        #expect(try fixture.state(of: "com.example.planted") == .enabled)
    }

    @Test("a snapshot is never served stale after the cache was refreshed by another path")
    func memoNotStale() throws {
        let fixture = try HostFixture()
        let path = try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        let discovery = try fixture.discovery()
        #expect(try discovery.snapshot().extensions.first?.state == .enabled)
        try FixtureBundles.write(Data("changed".utf8), to: path + "/Extension")
        _ = discovery.load(discovery.candidatePaths().map(\.path))  // what diagnose does
        #expect(try discovery.snapshot().extensions.first?.state == .invalid)
    }
}
