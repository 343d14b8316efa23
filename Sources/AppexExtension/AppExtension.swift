public import AppexCore
public import AppexIPC
import CAppexSystem
import Foundation
import Synchronization

/// An app extension's entry point: declare the point it binds to and how it serves its host.
///
/// ```swift
/// @main
/// struct TranslateExtension: AppExtension {
///     static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")
///     var configuration: some AppExtensionConfiguration {
///         ConnectionHandler { (request: TranslationRequest) in
///             TranslationReply(text: request.text.uppercased())
///         }
///     }
/// }
/// ```
///
/// Mirrors ExtensionKit's `AppExtension` with `@AppExtensionPoint.Bind`: the binding lives in
/// code, and `appex bundle` writes the bundle's Info.plist from it.
///
/// ### Implementing
/// Provide ``boundAppExtensionPoint``, ``configuration`` and `init()`; mark the type `@main`.
/// The process talks to its host over an inherited socket (descriptor 3), never standard
/// output, so stray `print`s cannot corrupt the channel.
public protocol AppExtension {
    /// The configuration's type.
    associatedtype Configuration: AppExtensionConfiguration

    /// The extension point this extension binds to.
    static var boundAppExtensionPoint: ExtensionPointIdentifier { get }

    /// How the extension serves its host's connection.
    var configuration: Configuration { get }

    /// Makes the extension; called once per process.
    init()
}

extension AppExtension {
    /// Runs the extension: serves the host's connection until the host closes it, then exits.
    /// With `--print-binding` prints the bound point and exits (used by `appex bundle`).
    public static func main() async throws {
        if CommandLine.arguments.dropFirst().first == "--print-binding" {
            print(boundAppExtensionPoint.description)
            return
        }
        let runtime = try ExtensionRuntime.fromEnvironment()
        try runtime.answerHello(boundExtensionPoint: boundAppExtensionPoint)
        let configuration = Self().configuration
        await runtime.serve(configuration.makeHandler())
    }
}

/// How an extension serves its host. Use ``ConnectionHandler``.
public protocol AppExtensionConfiguration: Sendable {
    /// The raw request handler behind the configuration.
    func makeHandler() -> @Sendable ([UInt8]) async throws -> [UInt8]
}

/// Serves each request of the host with a closure that takes a `Decodable` message and returns
/// an `Encodable` reply (JSON on the wire).
///
/// Mirrors the session handler of ExtensionKit's connection configuration.
public struct ConnectionHandler<Request: Decodable & Sendable, Reply: Encodable & Sendable>: AppExtensionConfiguration {
    private let handle: @Sendable (Request) async throws -> Reply

    /// Serves requests with `handle`; an error it throws reaches the host's caller as a
    /// remote failure carrying the error's description.
    public init(_ handle: @escaping @Sendable (Request) async throws -> Reply) {
        self.handle = handle
    }

    public func makeHandler() -> @Sendable ([UInt8]) async throws -> [UInt8] {
        let handle = self.handle
        return { bytes in
            let request = try JSONDecoder().decode(Request.self, from: Data(bytes))
            return Array(try JSONEncoder().encode(try await handle(request)))
        }
    }
}

/// The extension's view of its host, while it runs.
///
/// Mirrors `NSExtensionContext`: the connection to the host is the process's own, so it is
/// reached from anywhere in the extension.
public enum AppExtensionContext {
    static let connection = Mutex<IPCConnection?>(nil)

    /// The distributed-actor system over the host connection: export the extension's
    /// `distributed actor`s with it (`actorSystem.export(actor, as: name)`), resolve the host's.
    public static let actorSystem = IPCActorSystem()

    /// Calls the interface the host exports (its `AppExtensionProcess.Configuration.exportedHandler`).
    ///
    /// - Throws: `AppExtensionContext.Failure` when there is no host connection, or the host's
    ///   failure in words.
    public static func callHost<Request: Encodable, Reply: Decodable>(_ request: Request, expecting: Reply.Type = Reply.self, timeout: Duration? = nil) async throws -> Reply {
        guard let connection = connection.withLock({ $0 }) else {
            throw Failure(description: "no host connection: the extension is not running under its host")
        }
        let bytes = Array(try JSONEncoder().encode(request))
        let reply: [UInt8]
        do {
            reply = try await connection.call(bytes, timeout: timeout)
        } catch {
            throw Failure(description: "the host's call failed: \(error)")
        }
        return try JSONDecoder().decode(Reply.self, from: Data(reply))
    }

    /// Why a call to the host failed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }
}

/// The extension process's side of the launch contract (see docs/DESIGN.md, "Launching").
struct ExtensionRuntime {
    let connection: FrameChannel

    struct LaunchError: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads the contract from the environment: the connection on descriptor
    /// `APPEX_CONNECTION_FD` (3), the host's pid in `APPEX_HOST_PID`. Arms the parent-death
    /// signal first, then checks the host is still the parent (it may have died before).
    static func fromEnvironment() throws -> ExtensionRuntime {
        let environment = ProcessInfo.processInfo.environment
        guard let fdText = environment["APPEX_CONNECTION_FD"], let fd = Int32(fdText) else {
            throw LaunchError(description: "not launched by an Appex host: APPEX_CONNECTION_FD is not set (run the extension through its host)")
        }
        _ = cappex_set_parent_death_signal(SIGKILL)
        if let hostText = environment["APPEX_HOST_PID"], let host = Int32(hostText), getppid() != host {
            exit(0)  // the host died before we could arm the signal
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return ExtensionRuntime(connection: FrameChannel(socket: FileDescriptor(taking: fd)))
    }

    /// Waits for the host's hello, checks it is meant for this extension and speaks this
    /// protocol, and answers with the binding in code. Exits quietly when the host is not there.
    func answerHello(boundExtensionPoint: ExtensionPointIdentifier) throws {
        let environment = ProcessInfo.processInfo.environment
        let me = environment["APPEX_BUNDLE_IDENTIFIER"] ?? ""
        let hello = try Handshake.receive(Handshake.HostHello.self, on: connection, timeout: .seconds(30))
        guard hello.protocolVersion == Handshake.protocolVersion else {
            throw LaunchError(description: "the host speaks protocol \(hello.protocolVersion), this extension \(Handshake.protocolVersion)")
        }
        guard hello.extensionBundleIdentifier == me else {
            throw LaunchError(description: "the host launched \(hello.extensionBundleIdentifier), but this is \(me)")
        }
        try Handshake.send(Handshake.ExtensionHello(extensionBundleIdentifier: me, boundExtensionPoint: boundExtensionPoint.description,
                                                    processIdentifier: getpid()), on: connection)
    }

    /// Serves until the host closes the connection.
    func serve(_ handler: @escaping @Sendable ([UInt8]) async throws -> [UInt8]) async {
        let (closed, signal) = AsyncStream<Void>.makeStream()
        let connection = IPCConnection(channel: connection, handler: handler,
                                       invocationHandler: AppExtensionContext.actorSystem.invocationHandler, onClose: { _ in
            signal.yield()
            signal.finish()
        })
        AppExtensionContext.connection.withLock { $0 = connection }
        AppExtensionContext.actorSystem.attach(connection)
        connection.start()
        for await _ in closed { break }
    }
}
