@_spi(Wire) import AppexIPC
import AppexTestTiers
import AppexVocabulary
import Foundation
import Instrumentation
import ServiceContextModule
import Testing

/// The caller's W3C trace context crosses the connection in the frame (docs/protocol.md 4.1),
/// and the peer's handler runs in the context it stands for.
@Suite(.timed) struct TraceContextTests {
    static let parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    @Test(
        "a request made in a traced context carries its traceparent, and the peer's handler runs in that context; untraced or to a peer that reads none, nothing is sent"
    )
    func requestCarriesContext() async throws {
        TestInstrument.bootstrapOnce()
        let (a, b) = try FrameChannel.pair()
        let caller = IPCConnection(channel: a, handler: nil)
        let server = IPCConnection(channel: b) { _ in
            Array((ServiceContext.current?[TestTraceKey.self] ?? "none").utf8)
        }
        caller.start()
        server.start()
        defer {
            caller.invalidate()
            server.invalidate()
        }
        var context = ServiceContext.topLevel
        context[TestTraceKey.self] = Self.parent

        // The peer's hello did not say it reads trace context: nothing goes.
        let unsaid = try await ServiceContext.withValue(context) { try await caller.call([1]) }
        #expect(String(decoding: unsaid, as: UTF8.self) == "none")

        caller.sendTraceContext(true)
        let traced = try await ServiceContext.withValue(context) { try await caller.call([1]) }
        #expect(String(decoding: traced, as: UTF8.self) == Self.parent)
        // Off the executor and on a task with no preference alike: the caller's own-reply path.
        let detached = try await Task.detached {
            try await ServiceContext.withValue(context) { try await caller.call([2]) }
        }.value
        #expect(String(decoding: detached, as: UTF8.self) == Self.parent)

        let untraced = try await caller.call([3])
        #expect(String(decoding: untraced, as: UTF8.self) == "none")
    }

    @Test(
        "a traceparent travels with small, large and shared-memory frames, between untraced ones, and each arrives whole"
    )
    func everyPathCarriesIt() throws {
        let (a, b) = try FrameChannel.pair()
        let parent = Array(Self.parent.utf8)
        var frames: [Frame] = []
        for (index, size) in [0, 10, 70_000, 300_000, 5].enumerated() {
            var frame = Frame(
                kind: .request,
                requestID: UInt64(index + 1),
                payload: .init(repeating: UInt8(index), count: size)
            )
            frame.traceParent = parent
            frames.append(frame)
            frames.append(Frame(kind: .reply, requestID: UInt64(index + 100), payload: [UInt8(index)]))
        }
        for frame in frames { try a.send(frame) }
        for expected in frames {
            let received = try #require(try b.receive())
            #expect(received.kind == expected.kind)
            #expect(received.requestID == expected.requestID)
            #expect(received.traceParent == expected.traceParent)
            #expect(received.payload == expected.payload)
        }
    }

    @Test("a frame whose trace context is cut short ends the connection with the reason")
    func truncatedContext() throws {
        let (a, b) = try FrameChannel.pair()
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes[4] = 2  // request
        bytes[5] = 2  // a trace context follows
        bytes[8] = 1
        bytes += Array("00-short".utf8)
        _ = bytes.withUnsafeBytes { write(a.socket.rawValue, $0.baseAddress, $0.count) }
        a.shutdown()
        let error = #expect(throws: AppexError.self) { try b.receive() }
        #expect(error?.code == .closed)
        #expect(error?.message.contains("inside a frame") == true, "\(String(describing: error))")
    }
}

/// The context key a test instrument writes as `traceparent`.
enum TestTraceKey: ServiceContextKey {
    typealias Value = String
}

/// Writes and reads `traceparent` from ``TestTraceKey`` only: other tests' connections, with no
/// such key in their context, send nothing.
struct TestInstrument: Instrument {
    private static let bootstrapped: Void = { InstrumentationSystem.bootstrap(TestInstrument()) }()

    static func bootstrapOnce() { _ = bootstrapped }

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext,
        into carrier: inout Carrier,
        using injector: Inject
    )
    where Inject.Carrier == Carrier {
        if let parent = context[TestTraceKey.self] { injector.inject(parent, forKey: "traceparent", into: &carrier) }
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout ServiceContext,
        using extractor: Extract
    )
    where Extract.Carrier == Carrier {
        if let parent = extractor.extract(key: "traceparent", from: carrier) { context[TestTraceKey.self] = parent }
    }
}
