import AppexCore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@Suite(.timed) struct SigningTests {
    let directory: TemporaryDirectory
    let team = SigningKey.generate()
    let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = try FixtureBundles.makeExtension(
            in: directory.path,
            name: "Translate",
            bundleIdentifier: "com.example.translate",
            extensionPoint: "com.example.hostapp.HostAppFeature",
            entitlements: Entitlements(applicationGroups: ["group.com.example.app"], keychainAccessGroups: [])
        )
        try FileManager.default.createDirectory(atPath: path + "/Resources", withIntermediateDirectories: true)
        try FixtureBundles.write(Data("hello".utf8), to: path + "/Resources/strings.txt")
        try AppexBundle.sign(at: path, with: team)
    }

    @Test(
        "loadRunning: the bundle whose executable is this process's image is valid without hashing it; one whose executable is another file cannot vouch for this process"
    )
    func loadRunning() throws {
        // Beside the test runner, so that a hard link to it works (same file system).
        let runner = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let folder = (runner as NSString).deletingLastPathComponent + "/appex-running-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try FixtureBundles.makeExtension(
            in: folder,
            name: "Running",
            bundleIdentifier: "com.example.running",
            extensionPoint: "com.example.hostapp.HostAppFeature"
        )
        try FileManager.default.removeItem(atPath: running + "/Extension")
        try FileManager.default.linkItem(atPath: runner, toPath: running + "/Extension")
        try AppexBundle.sign(at: running, with: team)
        let loaded = AppexBundle.loadRunning(at: running)
        #expect(loaded.isValid, "\(loaded.problems)")
        #expect(loaded.team == team.teamIdentifier)

        // The other fixture's executable is a script, not this process: refused by name, though
        // its seal holds for anyone who loads it.
        #expect(AppexBundle.load(at: path).isValid)
        let other = AppexBundle.loadRunning(at: path)
        #expect(
            other.problems.contains {
                $0.kind == .fileModified && $0.message.contains("does not run the bundle's executable")
            }
        )

        // Only the executable goes unhashed: another sealed file swapped for a hard link to the
        // running image is caught.
        try FileManager.default.createDirectory(atPath: running + "/Resources", withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: URL(fileURLWithPath: running + "/Resources/strings.txt"))
        try AppexBundle.sign(at: running, with: team)
        #expect(AppexBundle.loadRunning(at: running).isValid)
        try FileManager.default.removeItem(atPath: running + "/Resources/strings.txt")
        try FileManager.default.linkItem(atPath: runner, toPath: running + "/Resources/strings.txt")
        let swapped = AppexBundle.loadRunning(at: running)
        #expect(swapped.problems.contains { $0.kind == .fileModified && $0.message.contains("Resources/strings.txt") })

        // An executable that is a link inside the bundle to the running image is followed.
        let linked = try FixtureBundles.makeExtension(
            in: folder,
            name: "Linked",
            bundleIdentifier: "com.example.linked",
            extensionPoint: "com.example.hostapp.HostAppFeature"
        )
        try FileManager.default.removeItem(atPath: linked + "/Extension")
        try FileManager.default.createDirectory(atPath: linked + "/bin", withIntermediateDirectories: true)
        try FileManager.default.linkItem(atPath: runner, toPath: linked + "/bin/Extension")
        try FileManager.default.createSymbolicLink(atPath: linked + "/Extension", withDestinationPath: "bin/Extension")
        try AppexBundle.sign(at: linked, with: team)
        let followed = AppexBundle.loadRunning(at: linked)
        #expect(followed.isValid, "\(followed.problems)")

        // Another file of the running bundle is still hashed: a changed Info.plist is caught.
        try Data("tampered".utf8).write(to: URL(fileURLWithPath: running + "/Info.plist"))
        #expect(AppexBundle.loadRunning(at: running).problems.contains { $0.kind == .fileModified })
    }

    @Test("a key file is private, reloads to the same team, and the team ID looks like Apple's")
    func keyFile() throws {
        let file = directory.appending("team.key")
        try team.write(to: file)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let reloaded = try SigningKey(contentsOf: file)
        #expect(reloaded.teamIdentifier == team.teamIdentifier)
        #expect(team.teamIdentifier.rawValue.count == 10)
        #expect(team.teamIdentifier.rawValue.allSatisfy { $0.isUppercase || ("2"..."7").contains($0) })
        #expect(SigningKey.generate().teamIdentifier != team.teamIdentifier)
        #expect(throws: AppexError.self) { try team.write(to: file) }
    }

    @Test("a garbage key file is a typed error naming the file")
    func garbageKey() throws {
        let file = directory.appending("bad.key")
        try FixtureBundles.write(Data("not a key".utf8), to: file)
        let error = try #require(throws: AppexError.self) { try SigningKey(contentsOf: file) }
        #expect(error.code == .invalidKey)
        #expect(error.message.contains(file))
    }

    @Test("a signed bundle verifies and names its team; the seal covers Info.plist and entitlements")
    func signedVerifies() throws {
        let bundle = AppexBundle.load(at: path)
        #expect(bundle.problems == [])
        #expect(bundle.team == team.teamIdentifier)
        #expect(bundle.fileCount == 4)
        #expect(bundle.entitlements.applicationGroups == ["group.com.example.app"])
    }

    @Test(
        "a modified file is named",
        arguments: ["Info.plist", "Entitlements.plist", "Extension", "Resources/strings.txt"]
    )
    func modifiedFile(_ file: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path + "/" + file))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(" ".utf8))
        try handle.close()
        let problems = AppexBundle.load(at: path).problems.filter { $0.kind == .fileModified }
        #expect(problems.map(\.file) == [path + "/" + file])
        #expect(problems.first?.message == "\(file) was modified after the bundle was signed")
    }

    @Test("an added file is named")
    func addedFile() throws {
        try FixtureBundles.write(Data("x".utf8), to: path + "/Resources/extra.dylib")
        let problems = AppexBundle.load(at: path).problems
        #expect(problems.map(\.kind) == [.fileAdded])
        #expect(problems.first?.file == path + "/Resources/extra.dylib")
    }

    @Test("a removed file is named")
    func removedFile() throws {
        try FileManager.default.removeItem(atPath: path + "/Resources/strings.txt")
        let problems = AppexBundle.load(at: path).problems
        #expect(problems.map(\.kind) == [.fileRemoved])
        #expect(problems.first?.file == path + "/Resources/strings.txt")
    }

    @Test("a changed executable bit is caught")
    func executableBit() throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path + "/Resources/strings.txt")
        #expect(AppexBundle.load(at: path).problems.map(\.kind) == [.fileModified])
    }

    @Test("a seal re-signed by another key, or edited, does not verify")
    func forgedSeal() throws {
        let sealPath = path + "/_CodeSignature/CodeResources"
        var seal = try String(contentsOfFile: sealPath, encoding: .utf8)
        // Swap in another team's identity without its signature.
        let other = SigningKey.generate()
        seal = seal.replacingOccurrences(of: team.teamIdentifier.rawValue, with: other.teamIdentifier.rawValue)
        try FixtureBundles.write(Data(seal.utf8), to: sealPath)
        let problems = AppexBundle.load(at: path).problems
        #expect(problems.map(\.kind) == [.badSignature])
        #expect(AppexBundle.load(at: path).team == nil)
    }

    @Test("re-signing after a change makes the bundle valid again, for the new team")
    func resign() throws {
        try FixtureBundles.write(Data("changed".utf8), to: path + "/Resources/strings.txt")
        #expect(!AppexBundle.load(at: path).isValid)
        let other = SigningKey.generate()
        try AppexBundle.sign(at: path, with: other)
        let bundle = AppexBundle.load(at: path)
        #expect(bundle.isValid)
        #expect(bundle.team == other.teamIdentifier)
    }

    @Test("a host's seal leaves nested extensions to their own seals")
    func nestedSeals() throws {
        let host = try FixtureBundles.makeHostApp(
            at: directory.appending("Host.app"),
            bundleIdentifier: "com.example.hostapp",
            extensionPoints: ["HostAppFeature"]
        )
        let nested = try FixtureBundles.makeExtension(
            in: host + "/Extensions",
            name: "Inner",
            bundleIdentifier: "com.example.inner",
            extensionPoint: "com.example.hostapp.HostAppFeature",
            signedBy: team
        )
        try AppexBundle.sign(at: host, with: team)
        // Adding, changing or removing an extension leaves the host valid.
        try FixtureBundles.makeExtension(
            in: host + "/Extensions",
            name: "Later",
            bundleIdentifier: "com.example.later",
            extensionPoint: "com.example.hostapp.HostAppFeature",
            signedBy: team
        )
        try FixtureBundles.write(Data("changed".utf8), to: nested + "/Extension")
        #expect(AppexBundle.load(at: host).problems == [])
        // ...and the broken extension is invalid on its own.
        #expect(AppexBundle.load(at: nested).problems.map(\.kind) == [.fileModified])
        // A stray file directly in Extensions/ is the host's, and breaks its seal.
        try FixtureBundles.write(Data("x".utf8), to: host + "/Extensions/stray.txt")
        #expect(AppexBundle.load(at: host).problems.map(\.kind) == [.fileAdded])
    }
}
