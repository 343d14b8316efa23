import AppexCore
import AppexFixtureInterfaces
import AppexHost
import AppexSystem
import AppexTestTiers
import AppexTesting
import AppexVocabulary
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Enhanced security's executable check (docs/decisions/0003-the-seal.md): the
/// seal is verified at every launch; the executable is hashed again after each exec, while the
/// kernel forbids writing it, and not before the next launch if nothing about it changed since.
@Suite(.timed) struct EnhancedLaunchProofTests {
    let fixture: HostFixture
    let tests: ExtensionProcessTests

    init() throws {
        fixture = try HostFixture()
        tests = ExtensionProcessTests(fixture: fixture)
        try fixture.declarePoint(["EXRequiresEnhancedSecurity": .boolean(true)])
    }

    func configuration(_ identity: AppExtensionIdentity, log: InMemoryLogHandler) -> AppExtensionProcess.Configuration {
        var configuration = AppExtensionProcess.Configuration(
            identity: identity,
            hostBundlePath: fixture.hostPath,
            environment: fixture.world.environment
        )
        configuration.logger = log.logger
        return configuration
    }

    /// Waits until the executable at `path` is proven, or 10 s.
    func waitForProof(_ path: String) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if AppexBundle.isProvenUnchangedSinceExec(path, team: fixture.world.team.teamIdentifier) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test(
        "a launch proves the executable unchanged since it ran, so the next is not hashed at all; a same-size change after, its time put back, is caught"
    )
    func provenThenChanged() async throws {
        let identity = try tests.installEcho()
        let executable = identity.bundlePath + "/AppexFixtureEcho"
        // The proof needs a change time at least 100 ms before the check.
        try await Task.sleep(for: .milliseconds(200))
        let log = InMemoryLogHandler()
        var configuration = configuration(identity, log: log)
        let first = try await AppExtensionProcess(configuration: configuration)
        defer { first.invalidate() }
        #expect(
            try await first.send(EchoRequest(command: "echo", text: "one"), expecting: EchoReply.self).text == "one"
        )
        #expect(try await waitForProof(executable))
        first.invalidate()
        let hashes = AppexBundle.timesHashed(executable)
        let second = try await AppExtensionProcess(configuration: configuration)
        defer { second.invalidate() }
        #expect(
            try await second.send(EchoRequest(command: "echo", text: "two"), expecting: EchoReply.self).text == "two"
        )
        second.invalidate()
        #expect(AppexBundle.timesHashed(executable) == hashes, "the proven executable was hashed again")

        // One byte of the section header table (read by no loader) changed in place, the size
        // and the modification time as they were.
        var before = stat()
        #expect(lstat(executable, &before) == 0)
        // Writable once the last process of it has ended (until then, ETXTBSY).
        var opened: FileHandle?
        let deadline = ContinuousClock.now + .seconds(10)
        while opened == nil, ContinuousClock.now < deadline {
            opened = FileHandle(forUpdatingAtPath: executable)
            if opened == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let handle = try #require(opened)
        try handle.seek(toOffset: UInt64(before.st_size - 1))
        let last = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(before.st_size - 1))
        try handle.write(contentsOf: Data([last ^ 0xff]))
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, executable, &times, 0) == 0)
        #expect(!AppexBundle.isProvenUnchangedSinceExec(executable, team: fixture.world.team.teamIdentifier))

        configuration.beforeSpawn = nil
        await #expect {
            let third = try await AppExtensionProcess(configuration: configuration)
            defer { third.invalidate() }
            _ = try await third.send(EchoRequest(command: "echo", text: "three"), expecting: EchoReply.self)
        } throws: { error in
            // Seen by the launch's reload of the bundle (its change time moved) or by the check.
            "\(error)".contains("AppexFixtureEcho was modified after the bundle was signed")
                || "\(error)".contains("not the executable its seal covers")
        }
    }

    @Test(
        "a change through a shared mapping written to before the check (which sets no time) made between the check and the exec is caught after the exec, and the process is ended"
    )
    func changeBetweenCheckAndExec() async throws {
        let identity = try tests.installEcho()
        let executable = identity.bundlePath + "/AppexFixtureEcho"
        var status = stat()
        #expect(lstat(executable, &status) == 0)
        let size = Int(status.st_size)
        let descriptor = open(executable, O_RDWR | O_CLOEXEC)
        try #require(descriptor >= 0)
        let mapping = try #require(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0))
        try #require(mapping != UnsafeMutableRawPointer(bitPattern: -1))
        let address = Int(bitPattern: mapping)
        let bytes = mapping.assumingMemoryBound(to: UInt8.self)
        // Written to before the check: the page is dirty and writable, so a later store to it
        // faults no more and sets no time.
        bytes[size - 1] = bytes[size - 1]

        let log = InMemoryLogHandler()
        var configuration = configuration(identity, log: log)
        configuration.beforeSpawn = {
            guard let mapping = UnsafeMutableRawPointer(bitPattern: address) else { return }
            mapping.storeBytes(
                of: mapping.load(fromByteOffset: size - 1, as: UInt8.self) ^ 0xff,
                toByteOffset: size - 1,
                as: UInt8.self
            )
            munmap(mapping, size)
            close(descriptor)  // nothing holds it open for writing: the exec is allowed
        }
        let process = try await AppExtensionProcess(configuration: configuration)
        defer { process.invalidate() }
        _ = try? await process.send(EchoRequest(command: "echo", text: "x"), expecting: EchoReply.self)
        let entries = await log.waitForEntries { entries in
            entries.contains { $0.level == .error && $0.message.contains("is not what its seal covers after the exec") }
        }
        #expect(entries.contains { $0.message.contains(executable) })
        // Ended: a call fails.
        let deadline = ContinuousClock.now + .seconds(10)
        var ended = false
        while !ended, ContinuousClock.now < deadline {
            do {
                _ = try await process.send(EchoRequest(command: "echo", text: "y"), expecting: EchoReply.self)
                // A call may relaunch it: the relaunch checks the file again and refuses it.
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                ended = true
            }
        }
        #expect(ended)
    }
}
