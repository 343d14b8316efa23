import AppexBuild
import Foundation
import Testing

/// `appex bundle` takes libcurl off an executable that never calls it (what `import
/// AppexWidgetKit` costs a widget that does not fetch), and leaves it on one that does.
@Suite(.timed) struct UnusedCurlTests {
    /// Compiles `source` as a program linked with the static Swift runtime, as the appex-bundle
    /// plugin links a product, and returns its path.
    static func program(_ name: String, _ source: String, in folder: String) async throws -> String {
        try source.write(toFile: folder + "/\(name).swift", atomically: true, encoding: .utf8)
        let built = try await run(
            "/usr/bin/env",
            ["swiftc", "-static-stdlib", "-O", folder + "/\(name).swift", "-o", folder + "/\(name)"],
            environment: ProcessInfo.processInfo.environment,
            timeout: 300
        )
        try #require(built.status == 0, "\(built.standardError)")
        return folder + "/\(name)"
    }

    @Test(
        "a program that imports FoundationNetworking but never fetches loses libcurl and still runs; one that fetches keeps it"
    )
    func takesOffOnlyWhatIsUnused() async throws {
        let folder = NSTemporaryDirectory() + "unused-curl-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let idle = try await Self.program(
            "Idle",
            "import Foundation\nimport FoundationNetworking\nprint(\"idle \\(URL(fileURLWithPath: \"/\").path)\")\n",
            in: folder
        )
        let fetching = try await Self.program(
            "Fetching",
            "import Foundation\nimport FoundationNetworking\nprint(URLSession.shared.configuration.timeoutIntervalForRequest)\n",
            in: folder
        )

        let idleBytes = try Data(contentsOf: URL(fileURLWithPath: idle))
        let before = UnusedCurl.neededLibraries(of: idleBytes)
        try #require(before.contains { $0.hasPrefix("libcurl.so.") }, "\(before)")
        let lighter = try #require(UnusedCurl.removed(from: idleBytes))
        #expect(lighter.count == idleBytes.count)
        #expect(UnusedCurl.neededLibraries(of: lighter) == before.filter { !$0.hasPrefix("libcurl.so.") })
        try lighter.write(to: URL(fileURLWithPath: idle))
        let ran = try await run(idle, [], environment: [:])
        #expect(ran.status == 0 && ran.standardOutput == "idle /\n", "\(ran)")
        let libraries = try await run("/usr/bin/ldd", [idle], environment: [:])
        #expect(!libraries.standardOutput.contains("libcurl"), "\(libraries.standardOutput)")
        // Taken off once: nothing left to take.
        #expect(UnusedCurl.removed(from: lighter) == nil)

        let fetchingBytes = try Data(contentsOf: URL(fileURLWithPath: fetching))
        #expect(UnusedCurl.neededLibraries(of: fetchingBytes).contains { $0.hasPrefix("libcurl.so.") })
        #expect(UnusedCurl.removed(from: fetchingBytes) == nil)
    }

    @Test("a file that is not a whole 64-bit ELF executable is left alone, whatever its bytes")
    func leavesOtherFilesAlone() async throws {
        #expect(UnusedCurl.removed(from: Data("#!/bin/sh\nexit 0\n".utf8)) == nil)
        #expect(UnusedCurl.neededLibraries(of: Data()) == [])
        let ls = try Data(contentsOf: URL(fileURLWithPath: "/bin/ls"))
        #expect(UnusedCurl.removed(from: ls) == nil)
        // Cut short anywhere: read as far as it goes, never past its end.
        for length in stride(from: 0, to: min(ls.count, 70_000), by: 997) {
            #expect(UnusedCurl.removed(from: ls.prefix(length)) == nil)
        }
        var scrambled = [UInt8](ls)
        for index in stride(from: 64, to: scrambled.count, by: 7) { scrambled[index] = 0xFF }
        _ = UnusedCurl.removed(from: Data(scrambled))
    }
}
