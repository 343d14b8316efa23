import AppexCore
import AppexFixtureInterfaces
@_spi(Measurement) import AppexHost
import AppexSystem
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// Where an extension's standard output and standard error go: its log under `APPEX_HOME`
/// (``ExtensionLog``), `appex log`, and a failed `appex call`'s report.
@Suite(.timed) struct ExtensionLogTests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture() }

    /// The pattern of a log line: time, pid, host, text.
    static func line(_ text: String, pid: Int32) throws -> Regex<AnyRegexOutput> {
        let escaped = NSRegularExpression.escapedPattern(for: text)
        return try Regex(
            "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z \\[\(pid)\\] \(HostFixture.hostIdentifier): \(escaped)$"
        )
    }

    @Test(
        "what an extension prints lands in its log under APPEX_HOME, a line each with its pid and host, the last words before a crash included, whatever the host's logger"
    )
    func outputIsKept() async throws {
        let identity = try ExtensionProcessTests(fixture: fixture).installEcho()
        let process = try await AppExtensionProcess(
            configuration: .init(
                identity: identity,
                hostBundlePath: fixture.hostPath,
                environment: fixture.world.environment
            )
        )
        defer { process.invalidate() }
        let pid = try await process.echo("log", "first\n  second").pid
        await #expect(throws: AppexError.self) {
            try await process.send(EchoRequest(command: "crash", text: "last words"), expecting: EchoReply.self)
        }
        let lines = await process.printedLines(waitingAtMost: .seconds(5))
        #expect(lines.count == 3, "\(lines)")
        for (line, text) in zip(lines, ["first", "  second", "last words"]) {
            #expect(try line.wholeMatch(of: Self.line(text, pid: pid)) != nil, "\(line)")
        }
        let log = try ExtensionLog(bundleIdentifier: "com.example.echo", environment: fixture.world.environment)
        #expect(log.path == fixture.world.environment.home + "/Logs/com.example.echo.log")
        #expect(try log.lines(ofProcess: pid) == lines)
        // The relaunched process writes to the same log, under its own pid.
        let next = try await process.echo("log", "relaunched").pid
        _ = await process.printedLines(waitingAtMost: .milliseconds(200))
        #expect(try log.lines(ofProcess: next).count == 1)
        #expect(try log.lines().count == 4)
    }

    @Test("a line's control characters are written visibly: an escape sequence cannot take over a reader's terminal")
    func controlCharactersAreVisible() throws {
        let log = try ExtensionLog(bundleIdentifier: "com.example.echo", environment: fixture.world.environment)
        log.append("\u{1B}[2Jcleared\rback\tkept", processIdentifier: 7, host: "h")
        let lines = try log.lines()
        #expect(lines.first?.hasSuffix("[7] h: \\u{1b}[2Jcleared\\u{d}back\tkept") == true, "\(lines)")
    }

    @Test("a bundle identifier that could name a path outside Logs/ names no log, and says so")
    func badIdentifierIsRefused() {
        for identifier in ["", "../x", "a/b", ".hidden"] {
            #expect(throws: AppexError.self) { try ExtensionLog(bundleIdentifier: identifier) }
        }
    }

    @Test(
        "past its limit the log moves to .1, once however many processes write: every line is whole, none repeated, the newest kept in order"
    )
    func rotation() async throws {
        let path = fixture.world.root.appending("rotating.log")
        let log = RotatingLog(path: path, limit: 4096)
        // Eight threads at once: each line whole (one O_APPEND write), in each writer's order.
        DispatchQueue.concurrentPerform(iterations: 8) { writer in
            for index in 0..<1000 {
                try? log.append("writer \(writer) line \(index) " + String(repeating: "x", count: 40))
            }
        }
        let lines = try log.lines()
        #expect(lines.allSatisfy { $0.wholeMatch(of: /writer \d line \d+ x{40}/) != nil })
        #expect(Set(lines).count == lines.count)
        for writer in 0..<8 {
            let indices = lines.compactMap { line -> Int? in
                guard line.hasPrefix("writer \(writer) ") else { return nil }
                return Int(line.split(separator: " ")[3])
            }
            #expect(indices == indices.sorted(), "writer \(writer)'s lines are out of order")
        }
        // Only a full file is moved: two writers that moved it twice would leave a short .1.
        let sizes = try [path + ".1", path].map { try Syscalls.stat($0).size }
        #expect(sizes[0] >= 4096 && sizes.allSatisfy { $0 <= 4096 + 8 * 64 }, "\(sizes)")
        #expect(!FileManager.default.fileExists(atPath: path + ".2"))
    }

    @Test("a writer that found the log full after another moved it moves nothing: the full file stays in .1")
    func lateWriterMovesNothing() throws {
        let path = fixture.world.root.appending("late.log")
        let log = RotatingLog(path: path, limit: 100)
        try log.append(String(repeating: "a", count: 120))
        try log.moveAsideIfFull()  // the first writer that found it full
        try log.append("new")
        try log.moveAsideIfFull()  // a second one, which found it full before the move
        #expect(try log.lines() == [String(repeating: "a", count: 120), "new"])
    }

    @Test(
        "`appex log ID` prints the kept lines, oldest first; --pid keeps one process's; an extension that printed nothing says so"
    )
    func logCommand() async throws {
        let log = try ExtensionLog(bundleIdentifier: "com.example.echo", environment: fixture.world.environment)
        log.append("one", processIdentifier: 10, host: "com.example.hostapp")
        log.append("two", processIdentifier: 11, host: "com.example.hostapp")
        let all = try await appex("log", "com.example.echo", in: fixture.world)
        #expect(all.status == 0, "\(all.standardError)")
        #expect(
            all.standardOutput.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1)[1] } == [
                "[10] com.example.hostapp: one", "[11] com.example.hostapp: two",
            ]
        )
        let one = try await appex("log", "com.example.echo", "--pid", "11", in: fixture.world)
        #expect(one.standardOutput.hasSuffix("[11] com.example.hostapp: two\n"), "\(one.standardOutput)")
        #expect(one.standardOutput.split(separator: "\n").count == 1)
        let none = try await appex("log", "com.example.quiet", in: fixture.world)
        #expect(none.status == 0)
        #expect(none.standardOutput.isEmpty)
        #expect(none.standardError.contains("com.example.quiet has printed nothing"), "\(none.standardError)")
    }

    @Test("`appex log ID --follow` prints each new line as a host writes it, across a move to .1")
    func follow() async throws {
        let log = try ExtensionLog(bundleIdentifier: "com.example.echo", environment: fixture.world.environment)
        log.append("before", processIdentifier: 10, host: "h")
        let child = try LineChild(
            appexExecutable,
            ["log", "com.example.echo", "--follow"],
            environment: fixture.world.processVariables
        )
        defer { kill(child.pid, SIGKILL) }
        #expect(await readLines([child], within: 20).first??.hasSuffix("[10] h: before") == true)
        log.append("after", processIdentifier: 10, host: "h")
        #expect(await readLines([child], within: 20).first??.hasSuffix("[10] h: after") == true)
        // Enough to move the file aside: the rest of the moved file, then the new one.
        let long = String(repeating: "y", count: 1024)
        for index in 0..<1100 { log.append("\(index) \(long)", processIdentifier: 10, host: "h") }
        log.append("newest", processIdentifier: 10, host: "h")
        var seen: [String] = []
        while seen.last?.hasSuffix("newest") != true {
            guard let line = await readLines([child], within: 20).first ?? nil else { break }
            seen.append(line)
        }
        #expect(seen.count == 1101, "lines lost or repeated across the move: \(seen.count)")
        #expect(FileManager.default.fileExists(atPath: log.path + ".1"))
    }

    @Test("a failed `appex call` prints what the extension printed in it, and where its log is")
    func failedCallPrintsOutput() async throws {
        _ = try ExtensionProcessTests(fixture: fixture).installEcho()
        let result = try await appex(
            "call",
            "--host",
            fixture.hostPath,
            "com.example.echo",
            #"{"command":"crash","text":"the last words"}"#,
            in: fixture.world
        )
        #expect(result.status == 1)
        #expect(result.standardError.contains("com.example.echo printed ("), "\(result.standardError)")
        #expect(result.standardError.contains("] com.example.hostapp: the last words"), "\(result.standardError)")
    }

    @Test(
        "`appex call --message-file` takes the message from a file or standard input, past an argument's 128 KiB; both, or neither, is refused"
    )
    func messageFile() async throws {
        _ = try ExtensionProcessTests(fixture: fixture).installEcho()
        let big = String(repeating: "z", count: 300 * 1024)
        let file = fixture.world.root.appending("message.json")
        try Data(#"{"command":"echo","text":"\#(big)"}"#.utf8).write(to: URL(fileURLWithPath: file))
        let fromFile = try await appex(
            "call",
            "--host",
            fixture.hostPath,
            "com.example.echo",
            "--message-file",
            file,
            in: fixture.world
        )
        #expect(fromFile.status == 0, "\(fromFile.standardError)")
        #expect(fromFile.standardOutput.contains(big))
        let fromInput = try await appex(
            "call",
            "--host",
            fixture.hostPath,
            "com.example.echo",
            "--message-file",
            "-",
            in: fixture.world,
            input: #"{"command":"echo","text":"piped"}"#
        )
        #expect(fromInput.status == 0, "\(fromInput.standardError)")
        #expect(fromInput.standardOutput.contains("piped"))
        let both = try await appex(
            "call",
            "--host",
            fixture.hostPath,
            "com.example.echo",
            "{}",
            "--message-file",
            file,
            in: fixture.world
        )
        #expect(both.status == 1)
        #expect(both.standardError.contains("two messages"), "\(both.standardError)")
        let neither = try await appex("call", "--host", fixture.hostPath, "com.example.echo", in: fixture.world)
        #expect(neither.status == 1)
        #expect(neither.standardError.contains("no message"), "\(neither.standardError)")
    }
}
