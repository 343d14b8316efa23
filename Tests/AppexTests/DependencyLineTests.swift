import AppexCommandCore
import AppexTestTiers
import Foundation
import Testing

/// The README's dependency line (the ```swift block after `<!-- dependency -->`) names this
/// release, and SwiftPM resolves it: a new package whose manifest holds the line as printed, with
/// this checkout served at the line's address and tagged with the version `appex --version`
/// prints, as the machine's package mirror serves the other dependencies (git's
/// `url.<repository>.insteadOf`).
@Suite(.timed) struct DependencyLineTests {
    /// The line, as printed.
    static func line() throws -> String {
        let text = try String(
            contentsOf: ReadmeSampleTests.repository.appendingPathComponent("README.md"),
            encoding: .utf8
        )
        let lines = text.components(separatedBy: "\n")
        let marker = try #require(lines.firstIndex(of: "<!-- dependency -->"), "README.md has no dependency line")
        try #require(lines.count > marker + 3 && lines[marker + 1] == "```swift" && lines[marker + 3] == "```")
        return lines[marker + 2]
    }

    @Test("the README's dependency line names this release's version, from its published address")
    func namesThisRelease() throws {
        #expect(try Self.line() == ".package(url: \"\(Self.address)\", from: \"\(appexVersion)\"),")
    }

    @Test(
        "a package with the README's dependency line resolves Appex at this release",
        .tags(.template),
        .timeLimit(.minutes(5))
    )
    func resolves() async throws {
        let line = try Self.line()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appex-dependency-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment
        let repository = try await Self.publish(ReadmeSampleTests.repository, in: folder, environment: &environment)

        let package = folder.appendingPathComponent("MyApp")
        try FileManager.default.createDirectory(
            at: package.appendingPathComponent("Sources/MyWidget"),
            withIntermediateDirectories: true
        )
        let manifest = """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "MyApp",
                dependencies: [
                    \(line)
                ],
                targets: [
                    .executableTarget(name: "MyWidget", dependencies: [.product(name: "AppexWidgetKit", package: "appex")]),
                ]
            )

            """
        try manifest.write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "import AppexWidgetKit\n".write(
            to: package.appendingPathComponent("Sources/MyWidget/main.swift"),
            atomically: true,
            encoding: .utf8
        )
        // Each run tags other bytes with the same version, at an address a real release may have:
        // SwiftPM's record of each version's revision and its repository cache stay in `folder`,
        // so the user's (~/.swiftpm, ~/.cache) never learn this checkout as that release.
        let resolved = try await run(
            "/usr/bin/env",
            [
                "swift", "package", "--package-path", package.path,
                "--security-path", folder.appendingPathComponent("security").path,
                "--cache-path", folder.appendingPathComponent("cache").path, "resolve",
            ],
            environment: environment,
            timeout: 240
        )
        try #require(
            resolved.status == 0,
            "\(resolved.standardOutput.suffix(2000))\n\(resolved.standardError.suffix(2000))"
        )
        let pins = try String(contentsOf: package.appendingPathComponent("Package.resolved"), encoding: .utf8)
        let head = try await run(
            "/usr/bin/env",
            ["git", "-C", repository, "rev-parse", "HEAD"],
            environment: environment
        )
        #expect(pins.contains("\"location\" : \"\(Self.address)\""), "\(pins)")
        #expect(pins.contains("\"version\" : \"\(appexVersion)\""), "\(pins)")
        #expect(
            pins.contains("\"revision\" : \"\(head.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))\""),
            "\(pins)"
        )
    }

    /// Where Appex is published.
    static let address = "https://github.com/appex-swift/appex"

    /// Serves `checkout` (its working tree as it is now: what the tests built) at ``address``,
    /// tagged with this release's version: a repository in `folder`, and git's
    /// `url.<repository>.insteadOf` added to `environment`. Returns the repository's path.
    static func publish(
        _ checkout: URL,
        in folder: URL,
        environment: inout [String: String]
    ) async throws -> String {
        let repository = folder.appendingPathComponent("appex").path
        let git = ["git", "-c", "user.name=Appex tests", "-c", "user.email=tests@appex.invalid"]
        let steps = [
            ["git", "init", "-q", repository],
            git + ["--git-dir=\(repository)/.git", "--work-tree=\(checkout.path)", "add", "-A"],
            git + ["--git-dir=\(repository)/.git", "commit", "-q", "-m", "The checkout under test"],
            ["git", "--git-dir=\(repository)/.git", "tag", appexVersion],
        ]
        for step in steps {
            let output = try await run("/usr/bin/env", step, environment: environment, timeout: 120)
            try #require(output.status == 0, "\(step.joined(separator: " ")): \(output.standardError)")
        }
        let count = Int(environment["GIT_CONFIG_COUNT"] ?? "") ?? 0
        environment["GIT_CONFIG_COUNT"] = String(count + 1)
        environment["GIT_CONFIG_KEY_\(count)"] = "url.\(repository).insteadOf"
        environment["GIT_CONFIG_VALUE_\(count)"] = address
        return repository
    }
}
