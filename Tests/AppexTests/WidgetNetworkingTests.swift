import AppexCore
import AppexSystem
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import Foundation
import Testing

/// A widget fetches with `URLSession` through `import AppexWidgetKit`, as WidgetKit widgets do
/// (Tests/Fixtures/AppexFixtureConfiguredWidget's Headline widget), when its entitlements grant
/// the network; without them the sandbox refuses the connection and the server hears nothing.
@Suite(.timed) struct WidgetNetworkingTests {
    /// A server on 127.0.0.1 that answers every GET with a headline and writes each request's
    /// path and User-Agent to a log; once it listens, it prints its port on a line.
    static let headlineServer = """
        import http.server, sys
        log = sys.argv[1]
        class Headline(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                with open(log, "a") as f:
                    f.write(self.path + " " + self.headers.get("User-Agent", "") + "\\n")
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"Appex fetched this")
            def log_message(self, *arguments):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Headline)
        open(log, "a").close()
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    /// The server, running until the returned process is terminated; its port and log. Its
    /// port line is read on a thread of its own (a blocking read); a server that prints none
    /// within 10 s is ended, which ends the read.
    static func startServer(in folder: String) async throws -> (Process, Int, String) {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", headlineServer, folder + "/requests.log"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runWithSignalsUnblocked()
        let watchdog = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 10, execute: watchdog)
        let reader = output.fileHandleForReading
        let line = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let started = startDetachedThread(name: "test.headline-port") {
                var bytes: [UInt8] = []
                while let byte = try? reader.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
                    bytes.append(byte)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
            if !started { continuation.resume(returning: "") }
        }
        watchdog.cancel()
        guard let port = Int(line) else {
            process.terminate()
            throw AppexError(
                .deadlineExceeded,
                "the headline server printed no port within 10 s (it printed \"\(line)\")"
            )
        }
        return (process, port, folder + "/requests.log")
    }

    /// The configured-widget fixture alone in a widget world, with `entitlements`.
    static func world(entitlements: Entitlements?) throws -> WidgetWorld {
        let widgets = try WidgetWorld()
        try FileManager.default.removeItem(atPath: widgets.app + "/Extensions/FixtureWidgets.appex")
        try FixtureBundles.bundle(
            executable: WidgetConfigurationTests.executable,
            in: widgets.app + "/Extensions",
            name: "Configured",
            bundleIdentifier: WidgetWorld.appIdentifier + ".configured",
            entitlements: entitlements,
            signedBy: widgets.world.team
        )
        return widgets
    }

    @Test(
        "a widget with the network entitlement fetches its configured address with URLSession and URLRequest and shows the reply; one without it is refused by the sandbox and the server hears nothing"
    )
    func fetchesOnlyWhenEntitled() async throws {
        let folder = NSTemporaryDirectory() + "headline-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (server, port, log) = try await Self.startServer(in: folder)
        defer { server.terminate() }
        let address = "http://127.0.0.1:\(port)/today"

        let entitled = try Self.world(
            entitlements: Entitlements(
                applicationGroups: [],
                keychainAccessGroups: [],
                values: [Entitlements.Key.networkClient: .boolean(true)]
            )
        )
        let host = try entitled.host()
        let headline = try #require(try await host.refresh().widget("Headline"))
        #expect(headline.texts() == ["no address"])
        try host.configure(headline, setting: ["address": address])
        #expect(try await host.refresh().widget("Headline")?.texts() == ["200 Appex fetched this"])
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "/today AppexFixture\n")

        let confined = try Self.world(entitlements: nil)
        let other = try confined.host()
        let refused = try #require(try await other.refresh().widget("Headline"))
        try other.configure(refused, setting: ["address": address])
        let texts = try await other.refresh().widget("Headline")?.texts() ?? []
        #expect(texts.first?.hasPrefix("failed") == true, "\(texts)")
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "/today AppexFixture\n")
    }
}
