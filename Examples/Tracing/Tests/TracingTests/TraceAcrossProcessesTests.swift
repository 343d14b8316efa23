import AppexHost
import AppexTestTiers
import Foundation
import Logging
import OTel
import ServiceLifecycle
import Testing
import Tracing
import TracingContract

/// One trace across the process boundary: the test process is the host, with swift-otel
/// bootstrapped (once per process: its step runs this suite alone, `--filter TracingTests`); its
/// extension is TracedExtension in a signed bundle, run by Appex in its sandbox; both export to
/// a real OTLP/HTTP collector on 127.0.0.1. Serialized: the host passes on its own environment's
/// OTEL_* variables, which each test sets. In the main tier (.timed): a test binary built with
/// APPEX_TRACING and then run for another tier skips it.
@Suite(.serialized, .timed)
struct TraceAcrossProcessesTests {
    static let hostService = "tracing-example-host"

    @Test(
        "a host span and its extension's server span, in another process, are one trace: exported through swift-otel to an OTLP collector, the extension's span a child of the host's",
        .timeLimit(.minutes(2))
    )
    func oneTraceAcrossTheBoundary() async throws {
        let collector = try OTLPCollector()
        defer { collector.stop() }
        let host = try TracingHost()
        let extensionID = "com.example.tracinghost.traced"
        // What the host exports, and what it passes on to its extension: OTLP/HTTP with JSON, and
        // a batch every 100 ms (the extension is ended with SIGKILL: it exports before that).
        let variables: [String: String?] = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint,
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_BSP_SCHEDULE_DELAY": "100",
            // Whatever the developer's shell says otherwise: these would win over the above.
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": nil, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": nil,
            "OTEL_TRACES_EXPORTER": nil, "OTEL_TRACES_SAMPLER": nil, "OTEL_PROPAGATORS": nil, "OTEL_SDK_DISABLED": nil,
        ]
        let (reply, spans) = try await withEnvironment(variables) {
            var configuration = OTel.Configuration.default
            configuration.serviceName = Self.hostService
            configuration.traces.otlpExporter.protocol = .httpJSON
            configuration.metrics.enabled = false
            configuration.logs.enabled = false
            let observability = ServiceGroup(
                services: [try OTel.bootstrap(configuration: configuration)],
                logger: Logger(label: "otel") { _ in SwiftLogNoOpLogHandler() }
            )
            let exporting = Task { try await observability.run() }

            let process = try await host.install("Traced", bundleIdentifier: extensionID, networkClient: true)
            defer { process.invalidate() }
            // The call: Appex carries this span's context in the frame; the extension serves it
            // in a server span, the child of this one.
            let reply = try await withSpan("host.call", ofKind: .client) { _ in
                try await process.send(TracedRequest(text: "traced"), expecting: TracedReply.self)
            }
            // Both processes export on their batch delay; wait for both spans before the host
            // ends its extension (SIGKILL: whatever it has not exported is lost).
            var spans: [ExportedSpan] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                spans = try collector.spans()
                if spans.contains(where: { $0.name == "host.call" })
                    && spans.contains(where: { $0.name.hasPrefix("appex.serve") })
                {
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            process.invalidate()
            // The host's exporter flushes and stops on a graceful shutdown.
            await observability.triggerGracefulShutdown()
            try await exporting.value
            return (reply, spans)
        }

        #expect(reply.text == "traced")
        #expect(reply.exportsTraces, "the extension did not bootstrap swift-otel; it printed: \(host.output.text)")
        let received = spans.map(\.description).joined(separator: "\n")
        let hostSpan = try #require(
            spans.first { $0.name == "host.call" },
            "the collector received no host.call span within 30 s; it received:\n\(received)"
        )
        let served = try #require(
            spans.first { $0.name.hasPrefix("appex.serve") },
            "the collector received no appex.serve span within 30 s; it received:\n\(received)\nthe extension printed:\n\(host.output.text)"
        )
        #expect(hostSpan.service == Self.hostService)
        #expect(hostSpan.parentSpanID == nil, "the host's span is the trace's root")
        #expect(hostSpan.kind == ExportedSpan.Kind.client)
        #expect(
            served.service == extensionID,
            "the extension's span comes from its own service (its bundle identifier)"
        )
        #expect(served.traceID == hostSpan.traceID, "one trace:\n\(received)")
        #expect(served.parentSpanID == hostSpan.spanID, "the extension's span is the host span's child:\n\(received)")
        #expect(served.kind == ExportedSpan.Kind.server)
        #expect(served.spanID != hostSpan.spanID)
    }

    @Test(
        "the host passes where and how to export (OTEL_*) only to an extension entitled to connect out, and never the headers or an endpoint with a credential in its URL",
        .timeLimit(.minutes(2))
    )
    func telemetryVariablesOnlyForNetworkClients() async throws {
        let host = try TracingHost()
        let variables: [String: String?] = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_BSP_SCHEDULE_DELAY": "100",
            // A credential: it stays with the host.
            "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer not-for-extensions",
            // Endpoints that carry a credential in their URL (a key in the query, a user and
            // password): they stay with the host too.
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces?api-key=not-for-extensions",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://user:not-for-extensions@127.0.0.1:4318",
            "OTEL_SDK_DISABLED": nil,
        ]
        let (online, offline) = try await withEnvironment(variables) {
            let online = try await host.install(
                "Online",
                bundleIdentifier: "com.example.tracinghost.online",
                networkClient: true
            )
            let offline = try await host.install(
                "Offline",
                bundleIdentifier: "com.example.tracinghost.offline",
                networkClient: false
            )
            defer {
                online.invalidate()
                offline.invalidate()
            }
            // Untraced calls (no span here): the variables are all the test looks at.
            return (
                try await online.send(TracedRequest(text: "online"), expecting: TracedReply.self),
                try await offline.send(TracedRequest(text: "offline"), expecting: TracedReply.self)
            )
        }
        #expect(
            Set(["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_BSP_SCHEDULE_DELAY"])
                .isSubset(of: online.telemetryVariables),
            "the entitled extension sees \(online.telemetryVariables)"
        )
        for kept in [
            "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        ] {
            #expect(!online.telemetryVariables.contains(kept), "\(kept) reached the extension")
        }
        #expect(online.exportsTraces)
        #expect(
            offline.telemetryVariables == [],
            "the extension that may not connect out sees \(offline.telemetryVariables)"
        )
        #expect(!offline.exportsTraces)
    }
}
