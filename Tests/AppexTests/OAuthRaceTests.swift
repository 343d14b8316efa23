import AppexAuth
import AppexAuthLogin
import AppexCore
import AppexStore
import AppexTesting
import AppexSystem
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// The auth fixture executable built beside the test bundle.
let authExecutable = URL(fileURLWithPath: appexExecutable).deletingLastPathComponent().appendingPathComponent("AppexFixtureAuth").path

/// A child process spoken to line by line on its standard input and output.
final class LineChild: @unchecked Sendable {  // each pipe end is used by one thread at a time
    let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffer = Data()

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    /// The next line (blocking: call it off Swift's pool); `nil` at end of output.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    func end() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// Reads one line from each child, each on a thread of its own.
func readLines(_ children: [LineChild]) async -> [String?] {
    await withTaskGroup(of: (Int, String?).self) { group in
        for (index, child) in children.enumerated() {
            group.addTask {
                await withCheckedContinuation { continuation in
                    startDetachedThread(name: "test.line") { continuation.resume(returning: (index, child.readLine())) }
                }
            }
        }
        var lines = [String?](repeating: nil, count: children.count)
        for await (index, line) in group { lines[index] = line }
        return lines
    }
}

@Suite(.serialized) struct OAuthRaceTests {
    init() async throws { try await OAuthServer.start() }

    @Test("the race: 8 extension processes and the host refresh an expired token at once, 20 rounds — one refresh per round (counted by the server), all hold the one new token and it works, nobody logged out")
    func singleFlightAcrossProcesses() async throws {
        let auth = try AuthWorld(), client = "swift-race-short"  // 2-second access tokens; rotation and reuse protection on
        let host = try auth.host(client: client)
        try await host.login.password(user: "ada", password: "lovelace")
        let configPath = auth.world.root.appending("race.json")
        try JSONEncoder().encode(auth.configuration(client: client)).write(to: URL(fileURLWithPath: configPath))
        let children = try (0..<8).map { _ in
            try LineChild(authExecutable, ["race", configPath, auth.world.team.teamIdentifier.rawValue], environment: auth.world.processVariables)
        }
        defer { children.forEach { $0.end() } }
        #expect(await readLines(children).allSatisfy { $0 == "ready" })

        for round in 1...20 {
            // Wait until the stored access token has expired (the server agrees: 2 s lifetime).
            let expiry = try #require(try host.tokenManager.storedTokens()?.expiresAt)
            let wait = expiry.timeIntervalSinceNow + 0.2
            if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
            let before = try await OAuthServer.stats()
            // All at once: 8 processes and the host.
            children.forEach { $0.send("go") }
            async let hostToken = host.tokenManager.withFreshAccessToken { $0 }
            let lines = await readLines(children)
            let token = try await hostToken
            let after = try await OAuthServer.stats()
            // Everyone holds the one token the round's single refresh produced, and it works.
            #expect(lines.allSatisfy { $0 == "ok \(token)" }, "round \(round): \(lines.map { $0?.prefix(12) ?? "nil" }) vs \(token.prefix(9))")
            var request = URLRequest(url: OAuthServer.issuer.appendingPathComponent("api/me"))
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "round \(round): the shared token does not work")
            let refreshed = (after["\(client).refresh_token.200"] ?? 0) - (before["\(client).refresh_token.200"] ?? 0)
            let refused = (after["\(client).refresh_token.400"] ?? 0) - (before["\(client).refresh_token.400"] ?? 0)
            #expect(refreshed == 1 && refused == 0, "round \(round): \(refreshed) refreshes, \(refused) refused")
            #expect(host.tokenManager.loginStatus.isUserLoggedIn, "round \(round): logged out")
        }
    }
}
