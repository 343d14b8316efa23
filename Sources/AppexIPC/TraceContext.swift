import Tracing

/// The W3C trace context a frame carries across the process boundary (docs/protocol.md, 4.1):
/// the caller's `traceparent`, as the bootstrapped instrument writes it, and the context the
/// serving side reads back from it. With no instrument bootstrapped (the no-op one writes
/// nothing), no frame carries one.
enum TraceContext {
    /// The `traceparent` of the task's service context, or `nil` when there is none to send.
    static func currentParent() -> [UInt8]? {
        guard let context = ServiceContext.current else { return nil }
        var carrier = Carrier()
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: Carrier.Access())
        guard let value = carrier.traceParent, value.utf8.count == Frame.traceParentSize else { return nil }
        return Array(value.utf8)
    }

    /// The service context a peer's `traceparent` stands for: the instrument reads it back.
    static func context(from parent: [UInt8]) -> ServiceContext {
        var context = ServiceContext.topLevel
        var carrier = Carrier()
        carrier.traceParent = String(decoding: parent, as: UTF8.self)
        InstrumentationSystem.instrument.extract(carrier, into: &context, using: Carrier.Access())
        return context
    }

    /// Where an instrument writes and reads the context: only `traceparent` crosses the wire.
    struct Carrier: Sendable {
        var traceParent: String?

        struct Access: Injector, Extractor {
            func inject(_ value: String, forKey key: String, into carrier: inout Carrier) {
                if key.lowercased() == "traceparent" { carrier.traceParent = value }
            }

            func extract(key: String, from carrier: Carrier) -> String? {
                key.lowercased() == "traceparent" ? carrier.traceParent : nil
            }
        }
    }
}
