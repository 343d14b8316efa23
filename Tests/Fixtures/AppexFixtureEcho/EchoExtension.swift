import AppexExtension
import AppexFixtureInterfaces
import AppexIPC
import Distributed
import Foundation

/// A fixture extension: echoes, and on request crashes, hangs, prints lines or prints without end.
/// It links AppexExtension alone (no swift-crypto, no GRDB), as an extension that uses no store does.
@main
struct EchoExtension: AppExtension {
    static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")

    var configuration: some AppExtensionConfiguration {
        ConnectionHandler { (request: EchoRequest) -> EchoReply in
            switch request.command {
            case "crash":
                // Last words, if any, on standard error (unbuffered: written before the kill).
                if !request.text.isEmpty { FileHandle.standardError.write(Data((request.text + "\n").utf8)) }
                signal(SIGSEGV, SIG_DFL)  // no crash report: the fault ends it at once
                // Process 1 of its own PID namespace ignores a signal it sends itself, as a
                // container's init does; a fault ends it whatever its pid.
                UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 0
            case "hang":
                // Says so first, on standard error: the host's log shows the request arrived.
                FileHandle.standardError.write(Data("hanging\n".utf8))
                try await Task.sleep(for: .seconds(3600))
            case "log":
                // Each line of the text on standard output, as an extension prints, flushed now
                // (a pipe is block-buffered): the host logs each as a record.
                for line in request.text.split(separator: "\n", omittingEmptySubsequences: false) { print(line) }
                fflush(nil)
            case "print":
                for index in 0..<10_000 { print("stray output \(index) that must not reach the channel") }
            case "sleep":
                // A call that takes the text's milliseconds: in flight across an upgrade.
                try await Task.sleep(for: .milliseconds(Int(request.text) ?? 0))
            case "fail":
                throw EchoFailure(text: request.text)
            case "callback":
                // Ask the host, and answer with what it said.
                let answer = try await AppExtensionContext.callHost(
                    HostQuestion(text: request.text),
                    expecting: HostAnswer.self
                )
                return EchoReply(text: answer.text, pid: getpid())
            case "garbage":
                // Bytes that are no frame at all, straight onto the connection.
                var bytes = [UInt8](repeating: 0xEE, count: 64)
                _ = write(3, &bytes, bytes.count)
                try await Task.sleep(for: .seconds(3600))
            case "oversize":
                // A well-formed header announcing a 1 GiB reply.
                var header: [UInt8] = [0, 0, 0, 0x40, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
                _ = write(3, &header, header.count)
                try await Task.sleep(for: .seconds(3600))
            default:
                break
            }
            return EchoReply(text: request.text, pid: getpid())
        }
    }

    init() {
        // The exported interface: callable from the host as a distributed actor.
        AppExtensionContext.actorSystem.export(
            UppercaseTranslator(actorSystem: AppExtensionContext.actorSystem),
            as: "translator"
        )
    }
}

/// Upper-cases; the texts `crash` and `fail` do what the session commands of those names do,
/// so a test can provoke one failure through both paths.
distributed actor UppercaseTranslator: FixtureTranslator {
    typealias ActorSystem = IPCActorSystem
    distributed func translate(_ text: String) throws -> TranslatedText {
        switch text {
        case "crash":
            signal(SIGSEGV, SIG_DFL)
            UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 0  // a fault: see the session's "crash"
        case "fail": throw EchoFailure(text: text)
        default: break
        }
        return TranslatedText(text: text.uppercased(), pid: getpid())
    }
}

struct EchoFailure: Error, CustomStringConvertible {
    var text: String
    var description: String { "echo refused: \(text)" }
}

struct HostQuestion: Codable, Sendable {
    var text: String
}

struct HostAnswer: Codable, Sendable {
    var text: String
}
