import AppexTestTiers
import Foundation
import Testing

/// The main job, `Scripts/demo.sh`: the story of ContactsExplorer, its widget and extensions,
/// played against the real server with this package's build. The script checks each step as it
/// goes (a step that does not hold stops it with exit 1, naming the step); this test runs it and
/// checks that every step ran and held.
@Suite(.timed, .tags(.product)) struct StoryTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(
        "Scripts/demo.sh plays the whole story against the real server, and each of its twelve steps holds (the last: both windows, screenshot in headless Chromium)"
    )
    func story() throws {
        let demo = Process()
        demo.executableURL = Self.repository.appendingPathComponent("Scripts/demo.sh")
        var environment = ProcessInfo.processInfo.environment
        // `appex` and the product's executables, from this test's own build (one graph).
        environment["APPEX_DEMO_BIN"] = Product.builtProducts
        demo.environment = environment
        let output = Pipe()
        demo.standardOutput = output
        demo.standardError = output
        try demo.runWithSignalsUnblocked()
        let pid = demo.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 300, execute: watchdog)
        defer { watchdog.cancel() }
        let transcript = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        demo.waitUntilExit()
        #expect(demo.terminationStatus == 0, "\(transcript)")
        let steps = [
            "the widget before login", "log in", "sync", "the widget shows", "show a contact",
            "the access token expires", "another team's extensions", "a passcode", "a new passcode",
            "the session is revoked", "log out", "the windows",
        ]
        for (number, title) in steps.enumerated() {
            #expect(transcript.contains("== \(number + 1). \(title)"), "step \(number + 1) did not run")
        }
        #expect(transcript.contains("Log in to ContactsExplorer"))
        #expect(transcript.contains("synced: 300 contacts"))
        #expect(transcript.contains("Lingua (de):") && transcript.contains("Translate (fr):"))
        #expect(transcript.contains("Log in again"))
        #expect(transcript.contains("Waiting for ContactsExplorer") && transcript.contains("answered 1 data request"))
        #expect(transcript.contains("Waiting for ContactsExplorer") && transcript.contains("answered 1 data request"))
        // The windows' screenshots, taken by headless Chromium in the light and the dark theme, are PNG files.
        for name in ["widget-desktop", "widget-desktop-dark", "contacts-window", "contacts-window-dark"] {
            let line = transcript.split(separator: "\n").first { $0.hasPrefix("\(name): ") }
            let path = String(try #require(line, "no \(name) screenshot").dropFirst(name.count + 2))
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes.count > 10_000, "\(path)")
        }
        #expect(transcript.contains("story: all 12 steps held\n"), "\(transcript.suffix(600))")
        // It ends with its parts' times.
        let last = transcript.split(separator: "\n").last ?? ""
        #expect(last.hasPrefix("demo.sh: the machine, the server and the build took "), "\(last)")
    }
}
