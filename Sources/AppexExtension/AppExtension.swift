@_spi(Wire) public import AppexIPC
import AppexSystem
import AppexVocabulary
import Distributed
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An app extension's entry point: declare the point it binds to and how it serves its host.
///
/// ```swift
/// @main
/// struct TranslateExtension: AppExtension {
///     @AppExtensionPoint.Bind
///     var boundAppExtensionPoint: AppExtensionPoint {
///         AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature")
///     }
///
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
/// Provide the binding, ``configuration`` and `init()`; mark the type `@main`. The binding is
/// either ExtensionKit's instance property (`var boundAppExtensionPoint: AppExtensionPoint`,
/// with `@AppExtensionPoint.Bind`) or a static one (`static let boundAppExtensionPoint =
/// ExtensionPointIdentifier(host:name:)`); give one of them.
/// The process talks to its host over an inherited socket (descriptor 3), never standard
/// output, so stray `print`s cannot corrupt the channel.
///
/// An extension's entry type is `Sendable`: it is made once and only read, and its
/// configuration's handlers (which run concurrently) capture it, as seed 001's generic
/// `Handler<E>` stores `let appex: E` and its `ConnectionHandler` closure captures `self`.
public protocol AppExtension: Sendable {
    /// The configuration's type.
    associatedtype Configuration: AppExtensionConfiguration

    /// The extension point this extension binds to (the static form).
    static var boundAppExtensionPoint: ExtensionPointIdentifier { get }

    /// The extension point this extension binds to, as ExtensionKit declares it:
    /// `@AppExtensionPoint.Bind var boundAppExtensionPoint: AppExtensionPoint { … }`.
    var boundAppExtensionPoint: AppExtensionPoint { get }

    /// How the extension serves its host's connection.
    var configuration: Configuration { get }

    /// Makes the extension; called once per process.
    init()
}

extension AppExtension {
    /// The static form of the binding, read from the instance property.
    public static var boundAppExtensionPoint: ExtensionPointIdentifier {
        BindingResolution.resolve(Self.self) { Self().boundAppExtensionPoint.identifier }
    }

    /// The instance form of the binding, read from the static property.
    public var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint(identifier: BindingResolution.resolve(Self.self) { Self.boundAppExtensionPoint })
    }
}

/// Breaks the loop of the two default bindings when a type gives neither: the inner call answers
/// ``unbound``, which the runtime refuses by name.
enum BindingResolution {
    /// What a type that declares no binding binds to: no point (empty host and name).
    static let unbound = ExtensionPointIdentifier(host: "", name: "")

    /// The types whose binding is being read on this task (or thread): one or two. An array,
    /// not a `Set`: a set's metadata is built at first use from its mangled name, a scan of every
    /// protocol conformance in the binary that each extension's start would pay (decision 0168).
    @TaskLocal static var resolving: [ObjectIdentifier] = []

    /// `body`'s answer, or ``unbound`` when already inside it for `type`. (A task-local, not
    /// Foundation's thread dictionary: an extension links no Foundation it does not use.)
    static func resolve(_ type: Any.Type, _ body: () -> ExtensionPointIdentifier) -> ExtensionPointIdentifier {
        let key = ObjectIdentifier(type)
        if resolving.contains(key) { return unbound }
        return $resolving.withValue(resolving + [key]) { body() }
    }
}

extension AppExtension {
    /// Runs the extension: offers the host's connection to ``configuration``, serves it until
    /// the host closes it, then exits. With `--print-binding` prints the bound point and exits
    /// (used by `appex bundle`).
    ///
    /// An extension that cannot serve (started by hand rather than by its host, or its host gone
    /// before the handshake) says why on standard error and exits with status 1: no crash report.
    ///
    /// Its work runs as a task while the main thread serves the main queue (the main actor's
    /// jobs) without `dispatch_main`: a statically linked extension then starts without sorting
    /// its unwind tables (docs/decisions/0168-extension-start-layout.md).
    public static func main() {
        MainThreadLoop.run {
            do {
                try await serveHost()
            } catch {
                let name =
                    CommandLine.arguments.first.flatMap { $0.split(separator: "/").last }.map(String.init)
                    ?? "extension"
                Terminal.writeStandardError("\(name): \(error)\n")
                ProcessControl.exit(1)
            }
        }
    }

    /// What ``main()`` does, its failure thrown.
    private static func serveHost() async throws(AppexError) {
        let instance = Self()
        let binding = instance.boundAppExtensionPoint.identifier
        if binding == BindingResolution.unbound {
            throw AppexError(
                .launchFailed,
                "\(Self.self) binds to no extension point: declare `@AppExtensionPoint.Bind var boundAppExtensionPoint: AppExtensionPoint { AppExtensionPoint.Identifier(\"HOST\", name: \"POINT\") }`"
            )
        }
        if CommandLine.arguments.dropFirst().first == "--print-binding" {
            print(binding.description)
            return
        }
        let runtime = try ExtensionRuntime.fromEnvironment()
        let hello = try runtime.receiveHello()
        let connection = HostConnection(hostBundleIdentifier: hello.hostBundleIdentifier)
        var accepted = instance.configuration.accept(connection: connection)
        var declined =
            accepted ? nil : connection.declineReason ?? "its configuration's accept(connection:) returned false"
        // A connection resumed in accept(connection:) is checked now, so the host's launch is
        // refused with the reason; one resumed later is checked when it resumes.
        if accepted, connection.isResumed, let problem = connection.configurationProblem {
            accepted = false
            declined = problem
        }
        try runtime.answerHello(boundExtensionPoint: binding, declined: declined)
        guard accepted else { return }
        await runtime.serve(connection, hostFeatures: hello.features)
    }
}

/// How an extension serves its host: decides whether to accept the host's connection and sets
/// up what it serves. Use ``ConnectionHandler``, or conform a type of your own.
public protocol AppExtensionConfiguration: Sendable {
    /// Decides whether to serve the host, once per process, before any request.
    ///
    /// To accept, set up what the connection serves — ``HostConnection/exportedObject`` (a
    /// `distributed actor` the host reaches as the connection's remote object, optionally with
    /// its ``HostConnection/exportedInterface``), and/or ``HostConnection/requestHandler`` —
    /// call ``HostConnection/resume()``, and return `true`. Nothing is delivered before
    /// `resume()`, which may also come later. Returning `false` refuses: the host's launch fails
    /// with `refused`, saying so.
    func accept(connection: HostConnection) -> Bool
}
