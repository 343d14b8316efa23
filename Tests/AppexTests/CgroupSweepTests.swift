import AppexSystem
import AppexTestTiers
import AppexTesting
import AppexVocabulary
import Foundation
import Testing

/// The per-process cgroups a host killed with kill -9 leaves behind are removed by the next host,
/// at its first sandboxed launch; a live host's are never touched (decision 0129: the sweep runs
/// at most once a minute per host process, where it ran at every launch).
@Suite(.timed) struct CgroupSweepTests {
    let fixture: HostFixture
    let tests: ExtensionProcessTests
    init() throws {
        fixture = try HostFixture()
        tests = ExtensionProcessTests(fixture: fixture)
    }

    /// This machine's writable hierarchies (where per-process groups are made), if any.
    private var roots: [String] {
        let cgroups = Sandbox.facilities.cgroups
        return Array(Set([cgroups.pids, cgroups.memory].compactMap { $0 }))
    }

    /// The groups host `pid` made under `root`.
    private func groups(of pid: Int32, under root: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter { $0.hasPrefix("appex.\(pid).") }
    }

    /// An `appex call --hold` host that launched the echo extension: its pid and its extension's.
    private func holdingHost(_ bundleIdentifier: String) async throws -> (LineChild, Int32) {
        let host = try LineChild(
            appexExecutable,
            [
                "call", "--host", fixture.hostPath, bundleIdentifier, #"{"command":"echo","text":"hi"}"#, "--hold",
            ],
            environment: fixture.world.processVariables
        )
        let line = await readLines([host], within: 30).first ?? nil
        guard let line, let extensionPID = Int32(line.split(separator: " ").last ?? "") else {
            Self.end(host)  // a failed start leaves no host (nor, by its parent-death signal, extension)
            throw AppexError(
                .launchFailed,
                "appex call --hold printed \(line ?? "nothing") where its extension's pid was due"
            )
        }
        return (host, extensionPID)
    }

    /// Kills `host` (SIGKILL) and reaps it, if it still runs.
    private static func end(_ host: LineChild) {
        guard host.process.isRunning else { return }
        kill(host.pid, SIGKILL)
        host.end()
    }

    @Test(
        "a host killed with kill -9 leaves its extension's groups; the next host's first launch removes them, and a live host's stay"
    )
    func deadHostsGroupsAreRemoved() async throws {
        guard !roots.isEmpty else { return }  // no writable cgroup hierarchy here: nothing is made
        let identity = try tests.installEcho()
        // Each host is ended whatever fails after it started, the second's start included.
        let (dead, deadExtension) = try await holdingHost(identity.bundleIdentifier)
        defer { Self.end(dead) }
        let (live, _) = try await holdingHost(identity.bundleIdentifier)
        defer { Self.end(live) }
        for root in roots {
            #expect(!groups(of: dead.pid, under: root).isEmpty, "the first host's groups under \(root)")
            #expect(!groups(of: live.pid, under: root).isEmpty, "the second host's groups under \(root)")
        }
        kill(dead.pid, SIGKILL)
        dead.end()
        // Its extension dies with it (the parent-death signal); its groups are left behind, empty.
        #expect(
            await eventually(within: 10) { !FileManager.default.fileExists(atPath: "/proc/\(deadExtension)") },
            "the killed host's extension ended"
        )
        // (Whether its groups are still there now depends on the hosts that run beside this test:
        // any new host sweeps at its first launch. The next one, below, must leave none.)

        let next = try await appex(
            "call",
            "--host",
            fixture.hostPath,
            identity.bundleIdentifier,
            #"{"command":"echo","text":"again"}"#,
            in: fixture.world
        )
        #expect(next.status == 0, "\(next.standardError)")
        for root in roots {
            #expect(groups(of: dead.pid, under: root).isEmpty, "the killed host's groups under \(root) were removed")
            #expect(!groups(of: live.pid, under: root).isEmpty, "the live host's groups under \(root) stay")
        }
    }
}
