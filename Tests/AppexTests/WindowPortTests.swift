import AppexTestTiers
import AppexTesting
import AppexVocabulary
import Foundation
import Testing

@testable import AppexWindow

/// `--port`: a window on a port it is given, and what happens when another program holds it.
@Suite(.timed) struct WindowPortTests {
    /// A listening TCP socket on `address` (`127.0.0.1` or `::1`) at a port the kernel picks, held
    /// until `close`; `nil` when this machine has no such loopback address.
    final class HeldPort: Sendable {
        let descriptor: Int32
        let port: Int

        init?(on address: String) {
            let six = address.contains(":")
            let descriptor = socket(six ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return nil }
            var storage = sockaddr_storage()
            var length = socklen_t(six ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                if six {
                    let pointer = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                    pointer.pointee.sin6_family = sa_family_t(AF_INET6)
                    pointer.pointee.sin6_addr = in6addr_loopback
                } else {
                    let pointer = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                    pointer.pointee.sin_family = sa_family_t(AF_INET)
                    pointer.pointee.sin_addr.s_addr = inet_addr("127.0.0.1")
                }
            }
            let bound = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    bind(descriptor, address, length) == 0 && listen(descriptor, 1) == 0
                        && getsockname(descriptor, address, &length) == 0
                }
            }
            guard bound else {
                close(descriptor)
                return nil
            }
            self.descriptor = descriptor
            port = withUnsafeBytes(of: &storage) { raw in
                six
                    ? Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
                    : Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
            }
        }

        deinit { close(descriptor) }
    }

    /// Whether nothing listens on `address`:`port` (a socket can bind it).
    static func isFree(_ address: String, _ port: Int) async throws -> Bool {
        let probe = """
            import socket, sys
            family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
            s = socket.socket(family, socket.SOCK_STREAM)
            try:
                s.bind((sys.argv[1], int(sys.argv[2])))
                print("free")
            except OSError as error:
                print("in use" if error.errno == 98 else "unavailable")
            """
        let output = try await run("/usr/bin/python3", ["-c", probe, address, "\(port)"], environment: [:])
        return output.standardOutput == "free\n"
    }

    @Test("asked for a port, the window serves there on both loopback addresses and its link names it")
    func servesOnTheChosenPort() async throws {
        // A port that was free a moment ago: held, read, let go.
        let port = try #require(HeldPort(on: "127.0.0.1")).port
        let window = try await TestWindow([CounterPage()], configuration: .init(port: port))
        #expect(window.port == port)
        #expect(window.loginURL.hasPrefix("http://\(window.hostName):\(port)/login?token="))
        #expect(try await window.request("GET", "/").status == 401)
        #expect(try await !Self.isFree("127.0.0.1", port))
        if HeldPort(on: "::1") != nil {
            #expect(try await !Self.isFree("::1", port), "the window left [::1]:\(port) to anyone")
        }
    }

    @Test(
        "a port another program holds, on 127.0.0.1 or on [::1], fails the window with an error that names it, and the window holds neither address",
        arguments: ["127.0.0.1", "::1"]
    )
    func portInUse(address: String) async throws {
        guard let held = HeldPort(on: address) else { return }  // no such loopback address here
        let window = try WindowServer(configuration: .init(port: held.port), pages: [CounterPage()])
        let served = Task { try await window.run { _ in } }
        let outcome = await withTimeout(seconds: 20) { await served.result }
        served.cancel()
        let result = try #require(outcome, "the window neither served nor failed within 20 s")
        let error = try #require(#expect(throws: AppexError.self) { try result.get() })
        #expect(error.code == .windowFailed)
        #expect(error.message.contains("port \(held.port)"), "\(error.message)")
        #expect(error.message.contains("another program listens there"), "\(error.message)")
        #expect(window.newLoginURL() == nil, "a window that failed hands out a link")
        let other = address == "::1" ? "127.0.0.1" : "::1"
        if HeldPort(on: other) != nil {
            #expect(try await Self.isFree(other, held.port), "the failed window still holds \(other):\(held.port)")
        }
        withExtendedLifetime(held) {}
    }

    @Test("a port held on [::1] names the port every time, whichever listener the group hears from first")
    func portInUseOnSixEveryTime() async throws {
        guard let held = HeldPort(on: "::1") else { return }  // no IPv6 loopback here
        // The [::1] listener's failure ends the 127.0.0.1 one, which used to end quietly: when the
        // group heard of that first, the error was ServiceGroup's "finished unexpectedly".
        var unnamed: [String] = []
        for _ in 0..<500 {
            let window = try WindowServer(configuration: .init(port: held.port), pages: [CounterPage()])
            // Bounded, as portInUse is: a window that served would otherwise run until the
            // test's time limit.
            let served = Task { try await window.run { _ in } }
            let outcome = await withTimeout(seconds: 20) { await served.result }
            served.cancel()
            switch outcome {
            case nil: unnamed.append("neither served nor failed within 20 s")
            case .success?: unnamed.append("served")
            case .failure(let error)?:
                let message = (error as? AppexError)?.message ?? "\(error)"
                if !message.contains("port \(held.port)") { unnamed.append(message) }
            }
        }
        #expect(unnamed.count == 0, "\(unnamed.count) of 500 failures did not name the port: \(unnamed.first ?? "")")
    }

    @Test("`appex widgets serve --port N` serves on N; a port in use stops it with a line that names it")
    func serveCommandPort() async throws {
        let world = try AppexTestEnvironment()
        let port = try #require(HeldPort(on: "127.0.0.1")).port
        let child = try LineChild(
            appexExecutable,
            ["widgets", "serve", "--port", "\(port)"],
            environment: world.processVariables
        )
        // Ended however the test ends (a failed #require included): SIGTERM, then SIGKILL after 10 s.
        var stopped = false
        defer {
            if !stopped {
                kill(child.pid, SIGTERM)
                child.end()
            }
        }
        let link = try #require(await readLines([child], within: 30).first ?? nil)
        #expect(try TestWindow(attachingTo: link).port == port, "\(link)")
        // A second one on the same port: refused, with the port named.
        let second = try await run(
            appexExecutable,
            ["widgets", "serve", "--port", "\(port)"],
            environment: world.processVariables,
            timeout: 30
        )
        #expect(second.status != 0)
        #expect(second.standardError.contains("port \(port)"), "\(second.standardError)")
        kill(child.pid, SIGTERM)
        #expect(await readLines([child], within: 10).first == "widget desktop stopped")
        child.end()
        stopped = true
    }

    @Test("a port outside 1–65535 is refused by name before anything is bound")
    func portOutOfRange() {
        for port in [0, -1, 65536] {
            let error = #expect(throws: AppexError.self) {
                try WindowServer(configuration: .init(port: port), pages: [CounterPage()])
            }
            #expect(error?.code == .invalidValue && error?.context.key == "port")
            #expect(error?.message.contains("port \(port)") == true)
        }
    }
}
