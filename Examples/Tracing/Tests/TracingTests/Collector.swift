import AppexTestTiers
import AppexTesting
import Foundation

/// A real OTLP/HTTP collector on 127.0.0.1 (collector.py, Python's standard library), for as
/// long as the value is used: it keeps every request's body, and ``spans()`` reads the spans
/// they carry. ``stop()`` ends it; so does this process's end (it exits when its standard input
/// closes).
final class OTLPCollector {
    /// The port it listens on.
    let port: Int
    /// `http://127.0.0.1:PORT`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT` (signals go to `/v1/…`).
    var endpoint: String { "http://127.0.0.1:\(port)" }

    private let process: Process
    private let input: Pipe
    private let received: TemporaryDirectory

    /// collector.py, beside this file.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "collector.py"
    )
    .path

    /// Starts the collector and waits for its port.
    init() throws {
        received = try TemporaryDirectory(prefix: "appex-otlp")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script, received.path]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.runWithSignalsUnblocked()
        var first = Data()
        while !first.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first.append(chunk)
        }
        guard let line = String(data: first, encoding: .utf8),
            let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw CollectorError(description: "collector.py printed no port: \(String(decoding: first, as: UTF8.self))")
        }
        self.port = port
    }

    deinit { stop() }

    /// Ends the collector (once; later calls do nothing) and waits for it.
    func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    /// Every span received so far, in the order the requests came.
    func spans() throws -> [ExportedSpan] {
        let files = try FileManager.default.contentsOfDirectory(atPath: received.path)
            .filter { $0.hasSuffix("-traces.json") }.sorted()
        return try files.flatMap { file in
            let body = try Data(contentsOf: URL(fileURLWithPath: received.appending(file)))
            do {
                return try ExportedSpan.spans(in: JSONDecoder().decode(OTLPTraces.self, from: body))
            } catch {
                throw CollectorError(
                    description: "\(file) is not OTLP/JSON (\(error)): \(String(decoding: body, as: UTF8.self))"
                )
            }
        }
    }
}

/// What went wrong with the collector, in words.
struct CollectorError: Error, CustomStringConvertible {
    var description: String
}

/// One span as the collector received it: its service (the `service.name` of its resource), and
/// its identifiers as lowercase hex.
struct ExportedSpan: CustomStringConvertible {
    /// OTLP's span kinds (`Span.SpanKind`), as OTLP/JSON writes them: integers.
    enum Kind {
        static let server = 2
        static let client = 3
    }

    var service: String?
    var name: String
    var kind: Int?
    var traceID: String
    var spanID: String
    /// `nil` for a root span.
    var parentSpanID: String?

    var description: String {
        "\(name) [\(service ?? "no service")] kind \(kind ?? 0) trace \(traceID) span \(spanID) parent \(parentSpanID ?? "none")"
    }

    /// The spans of one export request.
    static func spans(in request: OTLPTraces) throws -> [ExportedSpan] {
        try (request.resourceSpans ?? []).flatMap { resource in
            let service = resource.resource?.attributes?.first { $0.key == "service.name" }?.value?.stringValue
            return try (resource.scopeSpans ?? []).flatMap { scope in
                try (scope.spans ?? []).map { span in
                    ExportedSpan(
                        service: service,
                        name: span.name,
                        kind: span.kind,
                        traceID: try hex(span.traceId, bytes: 16),
                        spanID: try hex(span.spanId, bytes: 8),
                        parentSpanID: try span.parentSpanId.flatMap { $0.isEmpty ? nil : try hex($0, bytes: 8) }
                    )
                }
            }
        }
    }

    /// An identifier as lowercase hex. OTLP/JSON writes identifiers in hex; protobuf's canonical
    /// JSON mapping, which swift-otel 1.6's OTLP/JSON follows, writes `bytes` fields in base64:
    /// both are read (the length tells them apart).
    static func hex(_ text: String, bytes: Int) throws -> String {
        if text.count == bytes * 2, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        guard let data = Data(base64Encoded: text), data.count == bytes else {
            throw CollectorError(
                description: "\(text.debugDescription) is no \(bytes)-byte identifier, in hex or base64"
            )
        }
        return data.map { String(format: "%02x", $0) }.joined()
    }
}

/// An OTLP `ExportTraceServiceRequest` in OTLP/JSON: only the fields the tests read.
struct OTLPTraces: Decodable {
    /// The spans of one resource (one process: its `service.name`).
    struct ResourceSpans: Decodable {
        var resource: Resource?
        var scopeSpans: [ScopeSpans]?
    }

    /// The process that made the spans, by its attributes.
    struct Resource: Decodable {
        var attributes: [KeyValue]?
    }

    /// An attribute.
    struct KeyValue: Decodable {
        var key: String
        var value: AnyValue?
    }

    /// An attribute's value: only strings are read.
    struct AnyValue: Decodable {
        var stringValue: String?
    }

    /// The spans of one instrumentation scope.
    struct ScopeSpans: Decodable {
        var spans: [Span]?
    }

    /// A span: its identifiers as the exporter wrote them, its name and its kind.
    struct Span: Decodable {
        var traceId: String
        var spanId: String
        var parentSpanId: String?
        var name: String
        var kind: Int?
    }

    var resourceSpans: [ResourceSpans]?
}
