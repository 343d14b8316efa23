import AppexCore
import AppexHost
import AppexTesting
import Foundation
import Logging
import Synchronization
import Testing
import TracingContract

/// The TracedExtension executable, built beside the test bundle.
let tracedExtensionExecutable: String = {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var folder = URL(fileURLWithPath: me).deletingLastPathComponent()
    // On macOS the test bundle is a directory: Foo.xctest/Contents/MacOS/Foo.
    while folder.path != "/"
        && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("TracedExtension").path)
    {
        folder.deleteLastPathComponent()
    }
    return folder.appendingPathComponent("TracedExtension").path
}()

/// A signed host app declaring the point TracedExtension binds to, in a world of its own, and
/// its extensions: TracedExtension bundled under the names a test gives, signed by the world's team.
struct TracingHost {
    let world: AppexTestEnvironment
    let hostPath: String
    /// What the extensions print (swift-otel's diagnostics among it), for a failure's message.
    let output = ExtensionOutput()

    init() throws {
        world = try AppexTestEnvironment(prefix: "appex-tracing")
        hostPath = world.root.appending("TracingHost.app")
        try FixtureBundles.makeHostApp(
            at: hostPath,
            bundleIdentifier: TracingContract.hostBundleIdentifier,
            extensionPoints: [TracingContract.pointName],
            signedBy: world.team
        )
    }

    /// Bundles TracedExtension as `name.appex` inside the host, entitled to connect out when
    /// `networkClient` says so, and returns a process for it (launched on its first call).
    func install(_ name: String, bundleIdentifier: String, networkClient: Bool) async throws -> AppExtensionProcess {
        try FixtureBundles.bundle(
            executable: tracedExtensionExecutable,
            in: hostPath + "/Extensions",
            name: name,
            bundleIdentifier: bundleIdentifier,
            entitlements: networkClient
                ? Entitlements(
                    applicationGroups: [],
                    keychainAccessGroups: [],
                    values: [Entitlements.Key.networkClient: .boolean(true)]
                ) : nil,
            signedBy: world.team
        )
        let discovery = try ExtensionDiscovery(hostBundleAt: hostPath, environment: world.environment)
        let found = try discovery.snapshot().extensions.first { $0.bundleIdentifier == bundleIdentifier }
        let identity = try #require(found?.identity, "no valid extension \(bundleIdentifier): \(found?.problems ?? [])")
        let output = output
        return try await AppExtensionProcess(
            configuration: .init(
                identity: identity,
                hostBundlePath: hostPath,
                environment: world.environment,
                logger: Logger(label: bundleIdentifier) { _ in RecordingLogHandler(output: output) }
            )
        )
    }
}

/// The lines the extensions printed, as their host logged them.
final class ExtensionOutput: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Everything so far, a line each, or "nothing".
    var text: String {
        let all = lines.withLock { $0 }
        return all.isEmpty ? "nothing" : all.joined(separator: "\n")
    }
}

/// A log handler that keeps each message (an extension's output line) in an ``ExtensionOutput``.
struct RecordingLogHandler: LogHandler {
    let output: ExtensionOutput
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    func log(event: LogEvent) {
        output.append("\(event.metadata?["extension"] ?? "?"): \(event.message)")
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

/// Runs `body` with the process's environment variables `changes` set (`nil`: unset), then puts
/// back what was there: the host passes its own environment's OTEL_* variables to extensions.
/// (The suite is serialized: no other test reads the environment meanwhile.)
func withEnvironment<T>(_ changes: [String: String?], _ body: () async throws -> T) async rethrows -> T {
    let before = changes.keys.map { ($0, ProcessInfo.processInfo.environment[$0]) }
    func apply(_ name: String, _ value: String?) {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    for (name, value) in changes { apply(name, value) }
    defer { for (name, value) in before { apply(name, value) } }
    return try await body()
}
