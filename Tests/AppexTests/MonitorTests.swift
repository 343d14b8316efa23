import AppexCore
import AppexHost
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@Suite(.timed) struct MonitorTests {
    let fixture: HostFixture
    let point = AppExtensionPoint(host: HostFixture.hostIdentifier, name: "HostAppFeature")

    init() throws { fixture = try HostFixture(points: ["HostAppFeature", "Second"]) }

    func makeMonitor() async throws -> AppExtensionPoint.Monitor {
        try await AppExtensionPoint.Monitor(
            appExtensionPoint: point,
            hostBundleAt: fixture.hostPath,
            environment: fixture.world.environment
        )
    }

    @Test("a new monitor lists the enabled identities and counts the others")
    func initialState() async throws {
        try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        try fixture.addExtension("Disabled", id: "com.example.disabled", inHost: true)
        try fixture.addExtension("Broken", id: "com.example.broken", inHost: true, unsigned: true)
        try fixture.addExtension(
            "OtherPoint",
            id: "com.example.second",
            inHost: true,
            point: "com.example.hostapp.Second"
        )
        try fixture.discovery().setEnabled(false, bundleIdentifier: "com.example.disabled")
        let monitor = try await makeMonitor()
        #expect(monitor.identities.map(\.bundleIdentifier) == ["com.example.translate"])
        #expect(
            monitor.state
                == .init(
                    identities: monitor.identities,
                    enabledCount: 1,
                    disabledCount: 1,
                    unapprovedCount: 1,
                    invalidCount: 1
                )
        )
        #expect(monitor.state.identities.map(\.bundleIdentifier) == ["com.example.translate"])

        try await monitor.addAppExtensionPoint(AppExtensionPoint(host: HostFixture.hostIdentifier, name: "Second"))
        #expect(monitor.identities.map(\.bundleIdentifier) == ["com.example.second", "com.example.translate"])
    }

    @Test(
        "the first approval ever recorded reaches a monitor started before it (the registry did not exist yet), from another process"
    )
    func firstApprovalEver() async throws {
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        let registry = fixture.world.environment.registryDirectory
        try? FileManager.default.removeItem(atPath: registry)
        let monitor = try await makeMonitor()
        #expect(monitor.identities.isEmpty)
        let enabled = try await appex(
            "enable",
            "--host",
            fixture.hostPath,
            "com.example.summarize",
            in: fixture.world
        )
        #expect(enabled.status == 0, "\(enabled.standardError)")
        let seen = await waitForUpdate(of: monitor) {
            $0.identities.contains { $0.bundleIdentifier == "com.example.summarize" }
        }
        #expect(seen != nil)
    }

    @Test(
        "approvals changed again and again by a discovery this process keeps open (its registry connection stays open) each reach a monitor"
    )
    func approvalsFromAnOpenDiscovery() async throws {
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        let monitor = try await makeMonitor()
        let discovery = try fixture.discovery()
        for round in 0..<4 {
            let enable = round % 2 == 0
            try discovery.setEnabled(enable, bundleIdentifier: "com.example.summarize")
            let seen = await waitForUpdate(of: monitor, within: 5) { snapshot in
                snapshot.identities.contains { $0.bundleIdentifier == "com.example.summarize" } == enable
            }
            #expect(seen != nil, "round \(round)")
        }
    }

    @Test("creating a monitor for a point the host does not declare fails and says which points it does declare")
    func undeclaredPoint() async throws {
        let error = await #expect(throws: AppexError.self) {
            _ = try await AppExtensionPoint.Monitor(
                appExtensionPoint: AppExtensionPoint(host: HostFixture.hostIdentifier, name: "Nope"),
                hostBundleAt: fixture.hostPath,
                environment: fixture.world.environment
            )
        }
        #expect(error?.code == .undeclaredExtensionPoint)
        #expect(error?.message.contains("com.example.hostapp.HostAppFeature") == true)
    }

    @Test("installing, tampering with and removing an extension each reach the monitor")
    func installAndRemove() async throws {
        let monitor = try await makeMonitor()
        #expect(monitor.identities.isEmpty)

        // Install atomically: build elsewhere, rename into the host's Extensions/.
        let staging = fixture.world.root.appending("Staging")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let built = try FixtureBundles.makeExtension(
            in: staging,
            name: "Translate",
            bundleIdentifier: "com.example.translate",
            extensionPoint: HostFixture.point,
            signedBy: fixture.world.team
        )
        let installed = fixture.hostExtensions + "/Translate.appex"
        try FileManager.default.moveItem(atPath: built, toPath: installed)
        _ = await waitForUpdate(of: monitor) { $0.identities.map(\.bundleIdentifier) == ["com.example.translate"] }

        try FixtureBundles.write(Data("evil".utf8), to: installed + "/Extension")
        _ = await waitForUpdate(of: monitor) { $0.identities.isEmpty && $0.state.invalidCount == 1 }

        try FileManager.default.removeItem(atPath: installed)
        _ = await waitForUpdate(of: monitor) { $0.extensions.isEmpty }
    }

    @Test("a bundle replaced under a live monitor is still watched: a later change to it is seen")
    func replacedBundleStaysWatched() async throws {
        let installed = try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        let monitor = try await makeMonitor()
        #expect(monitor.identities.count == 1)
        let staging = fixture.world.root.appending("Staging")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let replacement = try FixtureBundles.makeExtension(
            in: staging,
            name: "Translate",
            bundleIdentifier: "com.example.translate",
            extensionPoint: HostFixture.point,
            info: ["CFBundleVersion": .string("2")],
            signedBy: fixture.world.team
        )
        // Swap in one burst: old out, new in.
        try FileManager.default.moveItem(atPath: installed, toPath: staging + "/Old.appex")
        try FileManager.default.moveItem(atPath: replacement, toPath: installed)
        _ = await waitForUpdate(of: monitor) { $0.identities.count == 1 && $0.extensions.first?.state == .enabled }
        // Now tamper with the new bundle: the monitor must see it.
        try FixtureBundles.write(Data("evil".utf8), to: installed + "/Extension")
        _ = await waitForUpdate(of: monitor) { $0.state.invalidCount == 1 }
    }

    @Test("a bundle copied in file by file is seen once complete")
    func nonAtomicInstall() async throws {
        let monitor = try await makeMonitor()
        let staging = fixture.world.root.appending("Staging")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let built = try FixtureBundles.makeExtension(
            in: staging,
            name: "Slow",
            bundleIdentifier: "com.example.slow",
            extensionPoint: HostFixture.point,
            signedBy: fixture.world.team
        )
        // cp -R writes the directory first, then each file.
        let copy = try await run("/bin/cp", ["-R", built, fixture.hostExtensions + "/Slow.appex"], environment: [:])
        #expect(copy.status == 0)
        _ = await waitForUpdate(of: monitor) { $0.identities.map(\.bundleIdentifier) == ["com.example.slow"] }
    }

    @Test("`appex enable` and `appex disable` run in another process reach a live monitor")
    func cliInAnotherProcess() async throws {
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        let monitor = try await makeMonitor()
        #expect(monitor.state.unapprovedCount == 1)

        let enable = try await appex("enable", "--host", fixture.hostPath, "com.example.summarize", in: fixture.world)
        #expect(enable.status == 0, "\(enable.standardError)")
        _ = await waitForUpdate(of: monitor) { $0.identities.map(\.bundleIdentifier) == ["com.example.summarize"] }

        let disable = try await appex("disable", "--host", fixture.hostPath, "com.example.summarize", in: fixture.world)
        #expect(disable.status == 0, "\(disable.standardError)")
        _ = await waitForUpdate(of: monitor) { $0.identities.isEmpty && $0.state.disabledCount == 1 }
    }

    @Test("updates start with the current snapshot and end when the monitor is released")
    func updatesLifecycle() async throws {
        try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        var monitor: AppExtensionPoint.Monitor? = try await makeMonitor()
        // One iterator, in a task of its own so each wait for it can have a deadline.
        let updates = monitor!.updates
        let (firsts, firstSeen) = AsyncStream<AppExtensionPoint.Monitor.Snapshot?>.makeStream()
        let iterating = Task {
            var iterator = updates.makeAsyncIterator()
            firstSeen.yield(await iterator.next())
            return await iterator.next() == nil
        }
        defer { iterating.cancel() }
        let first = await firstElement(of: firsts, "the first update") ?? nil
        #expect(first?.identities.map(\.bundleIdentifier) == ["com.example.translate"])
        monitor = nil
        let ended = await withTimeout(seconds: 10) { await iterating.value }
        #expect(ended == true, "the updates did not end within 10 s of the monitor's release")
    }
}
