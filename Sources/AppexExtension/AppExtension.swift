public import AppexIPC
import AppexSystem
import Distributed
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
    /// Runs the extension: offers the host's connection to ``configuration``, serves it until
    /// the host closes it, then exits. With `--print-binding` prints the bound point and exits
    /// (used by `appex bundle`).
    ///
    /// An extension that cannot serve (started by hand rather than by its host, or its host gone
    /// before the handshake) says why on standard error and exits with status 1: no crash report.
    public static func main() async {
        do {
            try await serveHost()
        } catch {
            let name =
                CommandLine.arguments.first.flatMap { $0.split(separator: "/").last }.map(String.init) ?? "extension"
            Terminal.writeStandardError("\(name): \(error)\n")
            exit(EXIT_FAILURE)
        }
    }

    /// What ``main()`` does, its failure thrown.
    private static func serveHost() async throws(AppexError) {
        if CommandLine.arguments.dropFirst().first == "--print-binding" {
            print(boundAppExtensionPoint.description)
            return
        }
        let runtime = try ExtensionRuntime.fromEnvironment()
        let hello = try runtime.receiveHello()
        let connection = HostConnection(hostBundleIdentifier: hello.hostBundleIdentifier)
        var accepted = Self().configuration.accept(connection: connection)
        var declined =
            accepted ? nil : connection.declineReason ?? "its configuration's accept(connection:) returned false"
        if accepted, let problem = connection.configurationProblem {
            accepted = false
            declined = problem
        }
        try runtime.answerHello(boundExtensionPoint: boundAppExtensionPoint, declined: declined)
        guard accepted else { return }
        await runtime.serve(connection)
    }
}

/// How an extension serves its host: decides whether to accept the host's connection and sets
/// up what it serves. Use ``ConnectionHandler``, or conform a type of your own.
public protocol AppExtensionConfiguration: Sendable {
    /// Decides whether to serve the host, once per process, before any request.
    ///
    /// To accept, set up what the connection serves — ``HostConnection/exportedObject`` (a
    /// `distributed actor` the host reaches as the connection's remote object), and/or
    /// ``HostConnection/requestHandler`` — call ``HostConnection/resume()``, and return `true`.
    /// Returning `false` refuses: the host's launch fails with `refused`, saying so.
    func accept(connection: HostConnection) -> Bool
}
