// ipc.roundtrip.64B.traced's tracer, bootstrapped in the benchmark host and its extension: the
// least a W3C tracer does — a new span id per span, the trace id and parent carried in the
// service context, `traceparent` written and parsed, each ended span counted — so the figure
// is what Appex adds to a traced call (inject, 55 bytes on the wire, extract, the serving
// span), not what a vendor's exporter costs.
import Synchronization
import Tracing

/// A W3C trace-context tracer that keeps a count of the spans it ended.
public final class W3CTracer: Tracer, Sendable {
    /// The identifiers a span stands for.
    public struct SpanContext: Sendable {
        public var traceHigh: UInt64
        public var traceLow: UInt64
        public var spanID: UInt64
    }

    enum SpanContextKey: ServiceContextKey {
        typealias Value = SpanContext
    }

    /// One span: its context, counted when it ends.
    public final class Span: Tracing.Span, Sendable {
        public let context: ServiceContext
        private let tracer: W3CTracer

        init(context: ServiceContext, tracer: W3CTracer) {
            self.context = context
            self.tracer = tracer
        }

        public var operationName: String {
            get { "" }
            set {}
        }
        public var attributes: SpanAttributes {
            get { [:] }
            set {}
        }
        public var isRecording: Bool { true }
        public func setStatus(_ status: SpanStatus) {}
        public func addEvent(_ event: SpanEvent) {}
        public func addLink(_ link: SpanLink) {}
        public func recordError<Instant: TracerInstant>(
            _ error: any Error,
            attributes: SpanAttributes,
            at instant: @autoclosure () -> Instant
        ) {}
        public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
            tracer.ended.add(1, ordering: .relaxed)
        }
    }

    /// Spans ended so far.
    public var endedSpans: Int { ended.load(ordering: .relaxed) }
    let ended = Atomic<Int>(0)
    private let state = Mutex<UInt64>(UInt64.random(in: .min ... .max))  // each process its own ids

    public init() {}

    private static let once = Mutex(false)

    /// Bootstraps one tracer for this process, the first time only.
    public static func bootstrapOnce() {
        once.withLock { done in
            guard !done else { return }
            InstrumentationSystem.bootstrap(W3CTracer())
            done = true
        }
    }

    /// A random 64-bit identifier (splitmix64).
    private func nextID() -> UInt64 {
        state.withLock { seed in
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> Span {
        var context = context()
        let parent = context[SpanContextKey.self]
        context[SpanContextKey.self] = SpanContext(
            traceHigh: parent?.traceHigh ?? nextID(),
            traceLow: parent?.traceLow ?? nextID(),
            spanID: nextID()
        )
        return Span(context: context, tracer: self)
    }

    public func forceFlush() {}

    public func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext,
        into carrier: inout Carrier,
        using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let span = context[SpanContextKey.self] else { return }
        var bytes = [UInt8](repeating: 0, count: 55)
        bytes[0] = UInt8(ascii: "0")
        bytes[1] = UInt8(ascii: "0")
        bytes[2] = UInt8(ascii: "-")
        Self.hex(span.traceHigh, into: &bytes, at: 3)
        Self.hex(span.traceLow, into: &bytes, at: 19)
        bytes[35] = UInt8(ascii: "-")
        Self.hex(span.spanID, into: &bytes, at: 36)
        bytes[52] = UInt8(ascii: "-")
        bytes[53] = UInt8(ascii: "0")
        bytes[54] = UInt8(ascii: "1")
        injector.inject(String(decoding: bytes, as: UTF8.self), forKey: "traceparent", into: &carrier)
    }

    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout ServiceContext,
        using extractor: Extract
    ) where Extract.Carrier == Carrier {
        guard let value = extractor.extract(key: "traceparent", from: carrier) else { return }
        let bytes = Array(value.utf8)
        guard bytes.count == 55, let high = Self.number(bytes[3..<19]), let low = Self.number(bytes[19..<35]),
            let span = Self.number(bytes[36..<52])
        else { return }
        context[SpanContextKey.self] = SpanContext(traceHigh: high, traceLow: low, spanID: span)
    }

    private static let digits = Array("0123456789abcdef".utf8)

    private static func hex(_ value: UInt64, into bytes: inout [UInt8], at offset: Int) {
        for index in 0..<16 { bytes[offset + index] = digits[Int((value >> (60 - 4 * UInt64(index))) & 0xf)] }
    }

    private static func number(_ hex: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for byte in hex {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
