@_spi(Fuzzing) @_spi(Wire) import AppexIPC
import Foundation
import Testing

/// docs/protocol.md says what an author in another language must match: its byte examples and
/// its constants are what the code sends and what the C library defines.
@Suite(.timed) struct ProtocolDocumentTests {
    static let document: String = {
        let path = ReadmeSampleTests.repository.appendingPathComponent("docs/protocol.md")
        return (try? String(contentsOf: path, encoding: .utf8)) ?? ""
    }()

    /// The bytes of the first hex dump after `heading` (`0000  57 00 …  ASCII`).
    static func firstDump(after heading: String) throws -> [UInt8] {
        let start = try #require(document.range(of: heading), "no \(heading) in docs/protocol.md")
        var bytes: [UInt8] = []
        var inDump = false
        for line in document[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if inDump { break }
                inDump = true
                continue
            }
            guard inDump, let dump = line.wholeMatch(of: /[0-9a-f]{4}  ((?:[0-9a-f]{2} ?){1,16})\s*.*/) else {
                continue
            }
            bytes += dump.1.split(separator: " ").compactMap { UInt8($0, radix: 16) }
        }
        return bytes
    }

    /// A hello frame as a current host sends it: the header, then the hello's payload.
    static func hostHelloFrame(host: String, extension identifier: String, point: String) -> [UInt8] {
        let payload = Handshake.HostHello(
            hostBundleIdentifier: host,
            extensionBundleIdentifier: identifier,
            extensionPoint: point,
            channel: ChannelConfiguration(),
            features: Handshake.features
        ).encoded()
        let length = UInt32(payload.count)
        return [UInt8(length & 0xff), UInt8(length >> 8 & 0xff), UInt8(length >> 16 & 0xff), UInt8(length >> 24), 1]
            + [UInt8](repeating: 0, count: 11) + payload
    }

    @Test("§12.1's and §12.9's host hellos are the bytes a current host sends, the features byte included")
    func hostHellos() throws {
        #expect(
            try Self.firstDump(after: "### 12.1 Hellos")
                == Self.hostHelloFrame(
                    host: "com.example.hostapp",
                    extension: "com.example.echo",
                    point: "com.example.hostapp.HostAppFeature"
                )
        )
        #expect(
            try Self.firstDump(after: "### 12.9 Widgets")
                == Self.hostHelloFrame(
                    host: "com.apple",
                    extension: "com.example.fixtureapp.widgets",
                    point: "com.apple.widgetkit-extension"
                )
        )
    }

    @Test("§7's table of memfd and sealing constants is the C library's (a C program prints them)")
    func memfdConstants() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appex-constants-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("constants.c")
        try """
        #define _GNU_SOURCE
        #include <fcntl.h>
        #include <stdio.h>
        #include <sys/mman.h>
        #include <sys/socket.h>
        #include <sys/syscall.h>
        int main(void) {
            printf("%#x %#x %d %d %#x %#x %#x %#x %d %d %ld\\n", MFD_CLOEXEC, MFD_ALLOW_SEALING, F_ADD_SEALS,
                   F_GET_SEALS, F_SEAL_SEAL, F_SEAL_SHRINK, F_SEAL_GROW, F_SEAL_WRITE, SOL_SOCKET, SCM_RIGHTS,
                   (long)SYS_memfd_create);
        }
        """.write(to: source, atomically: true, encoding: .utf8)
        let executable = folder.appendingPathComponent("constants").path
        let environment = ProcessInfo.processInfo.environment
        let compiler = try #require(ConformanceTests.compiler, "no C compiler (clang or cc) on PATH")
        let compiled = try await run(compiler, ["-o", executable, source.path], environment: environment)
        try #require(compiled.status == 0, "\(compiled.standardError)")
        let printed = try await run(executable, [], environment: environment)
        let v = printed.standardOutput.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        try #require(v.count == 11, "\(printed.standardOutput)")
        let table = try #require(Self.document.range(of: "| `MFD_CLOEXEC`, `MFD_ALLOW_SEALING` |"))
        let rows = Self.document[table.lowerBound...].split(separator: "\n").prefix(4).map(String.init)
        #expect(
            rows == [
                "| `MFD_CLOEXEC`, `MFD_ALLOW_SEALING` | `\(v[0])`, `\(v[1])` |",
                "| `F_ADD_SEALS`, `F_GET_SEALS` (`fcntl` commands) | `\(v[2])`, `\(v[3])` |",
                "| `F_SEAL_SEAL`, `F_SEAL_SHRINK`, `F_SEAL_GROW`, `F_SEAL_WRITE` | `\(v[4])`, `\(v[5])`, `\(v[6])`, `\(v[7])` |",
                "| `SCM_RIGHTS` (`SOL_SOCKET` `\(v[8])`) | `\(v[9])` |",
            ]
        )
        #if arch(x86_64)
        #expect(Self.document.contains("system call \(v[10]) on x86-64"))
        #elseif arch(arm64)
        #expect(Self.document.contains("\(v[10]) on arm64"))
        #endif
    }
}
