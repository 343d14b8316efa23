import AppexTestTiers
import Foundation
import Testing

/// A new user follows the README's widget walkthrough as written: in a new folder beside the
/// checkout, the package that depends on Appex by path, Xcode's widget template, the app;
/// then the section's commands — build, keygen, bundle the app, bundle the widget inside it,
/// `appex widgets show` — with the `appex` just built. The widget must be on screen.
@Suite(.timed) struct WidgetNewUserTests {
    struct Section {
        var files: [(path: String, contents: String)] = []
        var steps: [String] = []
    }

    /// The files (a ```swift block after `<!-- widget-file: PATH -->`) and the commands (the ```sh
    /// block after `<!-- widget-steps -->`) of the README's widget section.
    static func section() throws -> Section {
        let text = try String(
            contentsOf: ReadmeSampleTests.repository.appendingPathComponent("README.md"),
            encoding: .utf8
        )
        let lines = text.components(separatedBy: "\n")
        var section = Section()
        var index = 0
        func block(after start: Int) -> (String, Int) {
            var open = start + 1
            while open < lines.count, lines[open].hasPrefix("<!--") { open += 1 }
            var end = open + 1
            while end < lines.count, !lines[end].hasPrefix("```") { end += 1 }
            return (lines[(open + 1)..<min(end, lines.count)].joined(separator: "\n"), end)
        }
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("<!-- widget-file:"), line.hasSuffix("-->") {
                let path = line.dropFirst("<!-- widget-file:".count).dropLast("-->".count)
                    .trimmingCharacters(in: .whitespaces)
                let (contents, end) = block(after: index)
                section.files.append((path, contents))
                index = end
            } else if line == "<!-- widget-steps -->" {
                let (contents, end) = block(after: index)
                section.steps = contents.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
                index = end
            }
            index += 1
        }
        return section
    }

    @Test("the README's widget section is complete: a manifest, the widget, the app, and the commands")
    func sectionIsComplete() throws {
        let section = try Self.section()
        #expect(
            section.files.map(\.path) == [
                "Package.swift", "Sources/MyWidget/MyWidget.swift", "Sources/MyApp/MyApp.swift",
            ]
        )
        #expect(section.steps.count == 5)
        #expect(section.steps.last?.contains("appex widgets show") == true)
    }

    @Test(
        "a new user writes a widget from the README, bundles it into an app on the apps path and sees it in `appex widgets show`",
        .tags(.template),
        .timeLimit(.minutes(15))
    )
    func newUserSeesTheWidget() async throws {
        let section = try Self.section()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("appex-newuser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (package, environment) = try Self.writePackage(section, in: folder)
        var last = ProcessOutput(status: 0, standardOutput: "", standardError: "")
        for step in section.steps {
            last = try await run(
                "/bin/sh",
                ["-c", "cd '\(package.path)' && " + step],
                environment: environment,
                timeout: 600
            )
            #expect(
                last.status == 0,
                "`\(step)` failed:\n\(last.standardOutput.suffix(3000))\n\(last.standardError.suffix(3000))"
            )
            if last.status != 0 { return }
        }
        let screen = last.standardOutput
        #expect(screen.contains("My Widget"), "\(screen)")
        #expect(screen.contains("Time:"), "\(screen)")
        #expect(screen.contains("Emoji:"), "\(screen)")
        #expect(screen.contains("😀"), "\(screen)")
        #expect(screen.contains("╭"), "\(screen)")
        #expect(!screen.contains("⚠"), "the widget is not current:\n\(screen)")
        // What is drawn is the timeline, not the placeholder (they look alike in the template).
        let list = try await run(
            "/bin/sh",
            ["-c", "cd '\(package.path)' && APPEX_APPS_PATH=Apps appex widgets list"],
            environment: environment,
            timeout: 120
        )
        #expect(
            list.standardOutput.contains("MyWidget\tsystemSmall\tenabled/current\t5 entries"),
            "\(list.standardOutput)"
        )
    }

    /// Writes the section's files as `MyApp` in `folder`, depending on this checkout (the
    /// section's `../appex`), and the environment its commands run in: the `appex` just built
    /// first on the PATH, a home of its own, no search path.
    static func writePackage(_ section: Section, in folder: URL) throws -> (URL, [String: String]) {
        let package = folder.appendingPathComponent("MyApp")
        // A path dependency's identity is its folder's name: the checkout's, here.
        let identity = ReadmeSampleTests.repository.lastPathComponent
        for (path, contents) in section.files {
            let url = package.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            let adapted =
                contents
                .replacingOccurrences(of: "path: \"../appex\"", with: "path: \"\(ReadmeSampleTests.repository.path)\"")
                .replacingOccurrences(of: "package: \"appex\"", with: "package: \"\(identity)\"")
            try adapted.write(to: url, atomically: true, encoding: .utf8)
        }
        var environment = ProcessInfo.processInfo.environment
        let appexFolder = URL(fileURLWithPath: appexExecutable).deletingLastPathComponent().path
        environment["PATH"] = appexFolder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["APPEX_HOME"] = folder.appendingPathComponent("home").path
        environment["APPEX_EXTENSIONS_PATH"] = ""
        return (package, environment)
    }
}
