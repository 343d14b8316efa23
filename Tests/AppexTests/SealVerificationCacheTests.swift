import AppexCore
import AppexHost
import AppexTestTiers
import AppexTesting
import Crypto
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The persisted cache of verified seals (`$APPEX_HOME/Caches/seal-verifications`): a new
/// discovery skips the signature checks another made, and nothing else.
@Suite(.timed) struct SealVerificationCacheTests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture() }

    var cacheFile: String { fixture.world.environment.home + "/Caches/seal-verifications" }

    func records() throws -> [[UInt8]] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cacheFile)))
        return stride(from: 0, to: bytes.count - bytes.count % 32, by: 32).map { Array(bytes[$0..<$0 + 32]) }
    }

    func sealDigest(of bundle: String) throws -> [UInt8] {
        SealVerifications.record(
            ofSeal: try [UInt8](Data(contentsOf: URL(fileURLWithPath: bundle + "/" + AppexBundle.File.seal)))
        ).bytes
    }

    @Test("a snapshot records each seal it verified, once, in a file private to the user")
    func recordsEachSeal() throws {
        let translate = try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        let summarize = try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        #expect(try fixture.discovery().snapshot().extensions.count == 2)
        let first = try records()
        #expect(Set(first).isSuperset(of: [try sealDigest(of: translate), try sealDigest(of: summarize)]))
        #expect(Set(first).count == first.count)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: cacheFile)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        // A new discovery finds every seal known: it appends nothing.
        #expect(try fixture.discovery().snapshot().extensions.allSatisfy { $0.state != .invalid })
        #expect(try records() == first)
    }

    @Test(
        "a new discovery trusts a known seal but hashes every file: a same-size change within the second, its time put back, is caught"
    )
    func changedFileCaughtDespiteKnownSeal() throws {
        let path = try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        #expect(try fixture.discovery().snapshot().extensions.first?.state == .enabled)
        #expect(try records().contains(try sealDigest(of: path)))

        let executable = path + "/Extension"
        var before = stat()
        #expect(lstat(executable, &before) == 0)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: executable)))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: executable))
        // The modification time put back to the nanosecond: size and mtime say nothing changed.
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, executable, &times, 0) == 0)
        var after = stat()
        #expect(lstat(executable, &after) == 0)
        #expect(after.st_size == before.st_size)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)

        let found = try #require(try fixture.discovery().snapshot().extensions.first)
        #expect(found.state == .invalid)
        #expect(found.problems.map(\.kind) == [.fileModified])
        #expect(found.problems.first?.file == executable)
    }

    @Test(
        "a record vouches for exactly the seal bytes it was made from: one more hex digit changed is verified, and refused"
    )
    func recordIsKeyedByContent() throws {
        let path = try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        let sealPath = path + "/" + AppexBundle.File.seal
        var seal = try [UInt8](Data(contentsOf: URL(fileURLWithPath: sealPath)))
        // A signature that does not verify: its first hex digit changed.
        let signatureStart =
            try #require(seal.indices.reversed().first { seal[$0] == 0x0a && $0 < seal.count - 1 }) + 11
        seal[signatureStart] = seal[signatureStart] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        try Data(seal).write(to: URL(fileURLWithPath: sealPath))
        let refused = try #require(try fixture.discovery().snapshot().extensions.first)
        #expect(refused.problems.map(\.kind) == [.badSignature])

        // A record of those very bytes (written by whoever can write the host user's files) is
        // what makes them pass: the cache is consulted, by content.
        try FileManager.default.createDirectory(
            atPath: fixture.world.environment.home + "/Caches",
            withIntermediateDirectories: true
        )
        _ = FileManager.default.createFile(
            atPath: cacheFile,
            contents: Data(SealVerifications.record(ofSeal: seal).bytes)
        )
        #expect(try fixture.discovery().snapshot().extensions.first?.problems == [])

        // The same seal with its signature changed once more is another record: verified, refused.
        seal[signatureStart + 1] = seal[signatureStart + 1] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        try Data(seal).write(to: URL(fileURLWithPath: sealPath))
        #expect(try fixture.discovery().snapshot().extensions.first?.problems.map(\.kind) == [.badSignature])
    }

    @Test("a torn last record is padded past, a file past capacity starts over, and discovery goes on either way")
    func damagedFile() throws {
        let path = try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        #expect(try fixture.discovery().snapshot().extensions.first?.state == .enabled)
        let known = try sealDigest(of: path)
        // A crash cut an append short: 5 bytes of a record.
        let handle = try #require(FileHandle(forWritingAtPath: cacheFile))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2, 3, 4, 5]))
        try handle.close()
        // The next seal recorded goes past it, on a record's boundary, and is read back.
        let other = try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: true)
        let both: Set = [known, try sealDigest(of: other)]
        #expect(try fixture.discovery().snapshot().extensions.allSatisfy { $0.state == .enabled })
        #expect(try Data(contentsOf: URL(fileURLWithPath: cacheFile)).count % 32 == 0)
        #expect(Set(try records()).isSuperset(of: both))

        // Larger than capacity: dropped, and the seals verified again are recorded anew.
        _ = FileManager.default.createFile(
            atPath: cacheFile,
            contents: Data(count: (SealVerifications.capacity + 1) * 32)
        )
        #expect(try fixture.discovery().snapshot().extensions.allSatisfy { $0.state == .enabled })
        // Started over: the two extensions' seals, and the host's when it was loaded again.
        #expect(Set(try records()).isSuperset(of: both))
        #expect(try records().count <= 3)
    }
}
