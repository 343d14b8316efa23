@_spi(Wire) import AppexIPC
import AppexTestTiers
import Foundation
import Testing

/// Calls in both directions over a real socket pair.
@Suite(.timed) struct IPCConnectionTests {
    /// Two started connections, each serving with `handler`.
    static func pair(_ handler: @escaping IPCConnection.Handler) throws -> (IPCConnection, IPCConnection) {
        let (a, b) = try FrameChannel.pair()
        let left = IPCConnection(channel: a, handler: handler)
        let right = IPCConnection(channel: b, handler: handler)
        left.start()
        right.start()
        return (left, right)
    }

    @Test("requests and replies in both directions, many in flight, replies out of order")
    func concurrentCalls() async throws {
        let (left, right) = try Self.pair { request in
            // Later requests answer sooner.
            try await Task.sleep(for: .milliseconds(Int(20 - request[0])))
            return request + [0xff]
        }
        defer {
            left.invalidate()
            right.invalidate()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let side = index.isMultiple(of: 2) ? left : right
                    let reply = try await side.call([UInt8(index), 7])
                    #expect(reply == [UInt8(index), 7, 0xff])
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("a handler's error reaches the caller as a remote failure with its message")
    func remoteFailure() async throws {
        struct Refusal: Error, CustomStringConvertible { var description: String { "no translation for that" } }
        let (left, right) = try Self.pair { _ in throw Refusal() }
        defer {
            left.invalidate()
            right.invalidate()
        }
        let error = await #expect(throws: AppexError.self) { try await left.call([1]) }
        #expect(error?.code == .remoteFailure)
        #expect(error?.message == "no translation for that")
    }

    @Test("a deadline fails the call and cancels the handler on the other side")
    func deadline() async throws {
        let cancelled = AsyncStream<Void>.makeStream()
        let (left, right) = try Self.pair { _ in
            do {
                try await Task.sleep(for: .seconds(30))  // a handler that would take 30 s
            } catch {
                cancelled.continuation.yield()
                throw error
            }
            return []
        }
        defer {
            left.invalidate()
            right.invalidate()
        }
        let start = ContinuousClock.now
        let error = await #expect(throws: AppexError.self) { try await left.call([1], timeout: .milliseconds(100)) }
        #expect(error?.code == .deadlineExceeded)
        #expect(ContinuousClock.now - start < .seconds(20))  // event-driven, far below the handler's 30 s
        // The peer's handler learns of it.
        _ = await firstElement(of: cancelled.stream, within: 20, "the handler's cancellation")
    }

    @Test("cancelling the calling task cancels the handler on the other side")
    func cancellation() async throws {
        let started = AsyncStream<Void>.makeStream()
        let cancelled = AsyncStream<Void>.makeStream()
        let (left, right) = try Self.pair { _ in
            started.continuation.yield()
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                cancelled.continuation.yield()
                throw error
            }
            return []
        }
        defer {
            left.invalidate()
            right.invalidate()
        }
        let call = Task { try await left.call([1]) }
        _ = await firstElement(of: started.stream, "the handler's start")
        call.cancel()
        let result = try #require(
            await withTimeout(seconds: 10) { await call.result },
            "the cancelled call did not end within 10 s"
        )
        #expect(throws: AppexError.self) { try result.get() }
        _ = await firstElement(of: cancelled.stream, "the handler's cancellation")
    }

    @Test("when the peer goes away, every pending call fails at once with closed")
    func peerGone() async throws {
        let (a, b) = try FrameChannel.pair()
        let left = IPCConnection(channel: a)
        left.start()
        let call = Task { try await left.call([1]) }
        // Whether the request went out before the shutdown or not, the call must fail as closed.
        b.shutdown()
        let result = try #require(
            await withTimeout(seconds: 10) { await call.result },
            "the pending call did not fail within 10 s of the peer's going"
        )
        let error = #expect(throws: AppexError.self) { try result.get() }
        #expect(error?.code == .closed)
        let later = await #expect(throws: AppexError.self) { try await left.call([2]) }
        #expect(later?.code == .closed)
    }
}

/// The reader thread as a task executor.
@Suite(.timed) struct IPCExecutorTests {
    @Test("a request's handler starts on the serving connection's executor thread")
    func handlersStartOnTheExecutor() async throws {
        let (a, b) = try FrameChannel.pair()
        let executor = IPCExecutor()
        let server = IPCConnection(channel: b, handler: { _ in [executor.isCurrent ? 1 : 0] }, executor: executor)
        let client = IPCConnection(channel: a)
        server.start()
        client.start()
        defer {
            client.invalidate()
            server.invalidate()
            executor.shutdown()
        }
        #expect(try await client.call([0]) == [1])
    }

    @Test("a caller that prefers the connection's executor resumes on its thread; one that does not, elsewhere")
    func callersResumeWhereTheReplyIsRead() async throws {
        let (left, right) = try IPCConnectionTests.pair { $0 }
        defer {
            left.invalidate()
            right.invalidate()
        }
        let onReader = try await withTaskExecutorPreference(left.executor) {
            _ = try await left.call([1])
            return left.executor.isCurrent
        }
        #expect(onReader)
        _ = try await left.call([2])
        #expect(!left.executor.isCurrent)
    }

    @Test(
        "with or without spinning, a reply slower than the spin still arrives (the executor sleeps in poll and is woken)"
    )
    func spinThenSleep() async throws {
        for spin in [Duration.zero, .microseconds(50)] {
            let (a, b) = try FrameChannel.pair()
            let executor = IPCExecutor(spin: spin)
            let server = IPCConnection(
                channel: b,
                handler: { request in
                    try await Task.sleep(for: .milliseconds(30))
                    return request
                }
            )
            let client = IPCConnection(channel: a, executor: executor)
            server.start()
            client.start()
            let reply = try await withTaskExecutorPreference(executor) { try await client.call([4, 2]) }
            #expect(reply == [4, 2])
            client.invalidate()
            server.invalidate()
            executor.shutdown()
        }
    }

    @Test("two peers that both send more than the socket holds, from their reader threads, never wait on each other")
    func sendsNeverBlockTheReader() async throws {
        let (a, b) = try FrameChannel.pair()
        let left = IPCConnection(channel: a, handler: { $0 })
        let right = IPCConnection(channel: b, handler: { $0 })
        left.start()
        right.start()
        defer {
            left.invalidate()
            right.invalidate()
        }
        let payload = [UInt8](repeating: 3, count: 200_000)  // in the socket, not shared memory
        // Bounded: peers stuck in sendmsg never time out their calls (the callers would resume on
        // the stuck threads), so a watchdog breaks the connections and the calls fail instead.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            Issue.record("the peers waited on each other's full socket buffers")
            left.invalidate()
            right.invalidate()
        }
        defer { watchdog.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for side in [left, right] {
                group.addTask {
                    // Callers and handlers all on the reader threads: sends there must not block.
                    try await withTaskExecutorPreference(side.executor) {
                        try await withThrowingTaskGroup(of: Void.self) { calls in
                            for _ in 0..<12 {
                                calls.addTask {
                                    let reply = try await side.call(payload)
                                    #expect(reply.count == payload.count)
                                }
                            }
                            try await calls.waitForAll()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("jobs enqueued after shutdown still run, on the global executor")
    func shutdownLosesNoJob() async throws {
        let executor = IPCExecutor()
        #expect(executor.isRunning)
        executor.shutdown()
        #expect(!executor.isRunning)
        let ranElsewhere = await withTaskExecutorPreference(executor) {
            await Task.yield()
            return !executor.isCurrent
        }
        #expect(ranElsewhere)
    }

    @Test("one executor reads several connections")
    func sharedExecutor() async throws {
        let executor = IPCExecutor()
        defer { executor.shutdown() }
        var connections: [IPCConnection] = []
        for _ in 0..<4 {
            let (a, b) = try FrameChannel.pair()
            let server = IPCConnection(channel: b, handler: { $0 + [9] })
            let client = IPCConnection(channel: a, executor: executor)
            server.start()
            client.start()
            connections += [client, server]
        }
        defer { connections.forEach { $0.invalidate() } }
        for (index, client) in connections.enumerated() where index.isMultiple(of: 2) {
            #expect(try await client.call([UInt8(index)]) == [UInt8(index), 9])
        }
    }
}

/// Bytes where they are: shared payloads in place and passed on without copies.
@Suite(.timed) struct PayloadTests {
    @Test("a reply made once with Payload(sharing:) is served again and again in shared memory, unchanged")
    func sharedRepliesAreResent() async throws {
        let reply = try Payload(sharing: (0..<(512 << 10)).map { UInt8(truncatingIfNeeded: $0) })
        let (a, b) = try FrameChannel.pair()
        let server = IPCConnection(channel: b, payloadHandler: { _ in reply })
        let client = IPCConnection(channel: a)
        server.start()
        client.start()
        defer {
            client.invalidate()
            server.invalidate()
        }
        for _ in 0..<3 {
            let received = try await client.callInPlace([1])
            #expect(received.isShared)
            #expect(received == reply)
        }
    }

    @Test("a shared payload sent on a channel that keeps everything in the socket travels as bytes")
    func sharedPayloadRespectsTheThreshold() async throws {
        var socketOnly = FrameChannel.Configuration()
        socketOnly.sharedMemoryThreshold = .max
        let (a, b) = try FrameChannel.pair(configuration: socketOnly)
        // Small enough for the socket buffer: this test sends before it receives, on one thread.
        let reply = try Payload(sharing: Array(repeating: 7, count: 100_000))
        try a.send(Frame(kind: .reply, requestID: 1, contents: reply))
        let frame = try #require(try b.receive())
        #expect(!frame.contents.isShared)
        #expect(frame.contents == reply)
    }
}
