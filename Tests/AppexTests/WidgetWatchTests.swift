import AppexTestTiers
import Foundation
import Testing

/// `appex widgets serve --watch PACKAGE`: a change to a widget's view reaches the desktop's tile
/// by itself, rebuilt, bundled again and drawn.
@Suite(.timed) struct WidgetWatchTests {
    @Test(
        "with --watch, a one-line change to the README's widget reaches the desktop's tile: rebuilt, bundled again, drawn, with no command typed",
        .tags(.template),
        .timeLimit(.minutes(20))
    )
    func editReachesTheDesktop() async throws {
        let section = try WidgetNewUserTests.section()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("appex-watch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var (package, environment) = try WidgetNewUserTests.writePackage(section, in: folder)
        // The walkthrough up to the widget's bundle; its last step (`widgets show`) is the desktop here.
        for step in section.steps.dropLast() {
            let done = try await run(
                "/bin/sh",
                ["-c", "cd '\(package.path)' && " + step],
                environment: environment,
                timeout: 900
            )
            try #require(done.status == 0, "`\(step)` failed:\n\(done.standardError.suffix(3000))")
        }
        environment["APPEX_APPS_PATH"] = package.appendingPathComponent("Apps").path
        let serve = try LineChild(
            appexExecutable,
            ["widgets", "serve", "--watch", package.path, "--key", package.appendingPathComponent("team.key").path],
            environment: environment
        )
        defer { kill(serve.pid, SIGKILL) }
        let link = try #require(await readLines([serve], within: 60).first ?? nil, "no login link")
        let client = try TestWindow(attachingTo: link)
        let cookie = try await client.logIn()
        func page() async throws -> String {
            try await client.request("GET", "/", headers: ["Cookie": cookie]).body
        }
        try await Self.until { try await page().contains("Emoji:") }
        #expect(try await page().contains("Emoji:"), "the desktop does not show the widget")

        let source = package.appendingPathComponent("Sources/MyWidget/MyWidget.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        try text.replacingOccurrences(of: "Text(\"Emoji:\")", with: "Text(\"Emoji, watched:\")")
            .write(to: source, atomically: true, encoding: .utf8)
        let edited = ContinuousClock.now
        try await Self.until(seconds: 600) { try await page().contains("Emoji, watched:") }
        #expect(try await page().contains("Emoji, watched:"), "the desktop never showed the change")
        print("widget.edit-to-screen (test, debug build under load): \(ContinuousClock.now - edited)")
    }

    /// Waits for `condition`, at most `seconds`.
    static func until(seconds: Double = 60, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try await !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
    }
}
