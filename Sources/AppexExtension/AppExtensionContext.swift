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
    /// - Throws: ``/AppexVocabulary/AppexError``: `invalidated` when there is no host connection; `coding` when
    ///   the request cannot be encoded or the reply is not a `Reply`; otherwise the call's
    ///   failure (`remote-failure` with the host's words, `deadline-exceeded`, `cancelled`,
    ///   `closed`), with the host's pid as the context's peer.
    public static func callHost<Request: Encodable, Reply: Decodable>(
        _ request: Request,
        expecting: Reply.Type = Reply.self,
        timeout: Duration? = nil
    ) async throws(AppexError) -> Reply {
        guard let connection = connection.withLock({ $0 }) else {
            throw AppexError(.invalidated, "no host connection: the extension is not running under its host")
        }
        let bytes: [UInt8]
        do { bytes = Array(try JSONEncoder().encode(request)) } catch {
            throw AppexError(.coding, "cannot encode \(Request.self) for the host", underlyingError: error)
        }
        let reply: [UInt8]
        do {
            reply = try await connection.call(bytes, timeout: timeout)
        } catch {
            throw error.updatingContext { $0.peer = ProcessControl.parentProcessIdentifier }  // the host is the parent (the launch contract)
        }
        do { return try JSONDecoder().decode(Reply.self, from: Data(reply)) } catch {
            throw AppexError(.coding, "the host's reply is not a \(Reply.self)", underlyingError: error)
        }
    }
}
