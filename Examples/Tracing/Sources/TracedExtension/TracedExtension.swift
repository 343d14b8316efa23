// The tracing example's extension: it exports its spans through swift-otel, configured by the
// OTEL_* variables its host passed on, so the span Appex opens for each call (a child of the
// host's, in one trace) reaches the host's collector.
import AppexExtension
import Foundation
import OTel
import ServiceLifecycle
import TracingContract

/// An extension whose calls are traced: `init()` bootstraps swift-otel when its host gave it an
/// endpoint, and each call runs in Appex's `appex.serve request` server span.
@main
struct TracedExtension: AppExtension {
    static let boundAppExtensionPoint = ExtensionPointIdentifier(
        host: TracingContract.hostBundleIdentifier,
        name: TracingContract.pointName
    )

    var configuration: some AppExtensionConfiguration {
        ConnectionHandler { (request: TracedRequest) -> TracedReply in
            // Runs inside Appex's server span: a span started here would be its child.
            TracedReply(
                text: request.text,
                telemetryVariables: ProcessInfo.processInfo.environment.keys.filter { $0.hasPrefix("OTEL_") }.sorted(),
                exportsTraces: Telemetry.isExporting
            )
        }
    }

    init() {
        Telemetry.start()
    }
}

/// swift-otel in this process: bootstrapped once, its service run for as long as the process.
enum Telemetry {
    /// Whether the process exports its spans (its host gave it an OTLP endpoint).
    static var isExporting: Bool { started }

    /// Bootstraps the tracer and runs its exporter, once, when the environment names an endpoint.
    ///
    /// Without one the extension stays untraced: its host passes the OTEL_* variables only to an
    /// extension entitled to connect out (`com.apple.security.network.client`), and one that may
    /// not connect could not export anyway. Everything else (protocol, batch delay, sampler) comes
    /// from those variables too: swift-otel reads them over the configuration given here.
    static func start() {
        _ = started
    }

    private static let started: Bool = {
        let environment = ProcessInfo.processInfo.environment
        guard
            environment["OTEL_EXPORTER_OTLP_ENDPOINT"] != nil
                || environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] != nil
        else { return false }
        var configuration = OTel.Configuration.default
        configuration.serviceName = environment["APPEX_BUNDLE_IDENTIFIER"] ?? "TracedExtension"
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        do {
            let service = try OTel.bootstrap(configuration: configuration)
            // The host ends an extension with SIGKILL: nothing runs after the last call, so the
            // spans go out on the batch delay (OTEL_BSP_SCHEDULE_DELAY), not at shutdown.
            Task { try await service.run() }
            return true
        } catch {
            FileHandle.standardError.write(Data("cannot bootstrap swift-otel: \(error)\n".utf8))
            return false
        }
    }()
}
