import AppexTestTiers
import Foundation
import Synchronization
import Testing

@testable import AppexSystem

/// The event thread's timers, kept apart from its descriptors and looked at only when one is due:
/// each fires at its own interval, a cancelled one never again, and neither a
/// cancelled earliest timer nor a later registration delays another.
@Suite(.timed) struct EventThreadTimerTests {
    private final class Count: Sendable {
        let value = Atomic(0)
        func add() { value.add(1, ordering: .relaxed) }
        var now: Int { value.load(ordering: .relaxed) }
    }

    @Test(
        "each timer fires at its own interval; a cancelled one stops; descriptors' events between them change nothing"
    )
    func intervalsAndCancellation() async throws {
        let fast = Count()
        let slow = Count()
        let fastToken = try #require(EventThread.shared.every(.milliseconds(20)) { fast.add() })
        let slowToken = try #require(EventThread.shared.every(.milliseconds(300)) { slow.add() })
        defer { EventThread.shared.cancel(slowToken) }
        // Readiness events on the same thread meanwhile: a pipe written to, over and over.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let reader = OwnedDescriptor(taking: readEnd)
        defer { close(writeEnd) }
        let events = Count()
        let readToken = try #require(
            EventThread.shared.whenReadable(reader) {
                var byte: UInt8 = 0
                _ = read(readEnd, &byte, 1)
                events.add()
                return .keep
            }
        )
        defer { EventThread.shared.cancel(readToken) }
        for _ in 0..<20 {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(
            await eventually(within: 10) { fast.now >= 5 && events.now == 20 },
            "fast \(fast.now), events \(events.now)"
        )
        EventThread.shared.cancel(fastToken)
        let atCancel = fast.now
        #expect(await eventually(within: 10) { slow.now >= 2 }, "the slow timer fired \(slow.now) times")
        #expect(fast.now <= atCancel + 1, "a cancelled timer fired again: \(atCancel) -> \(fast.now)")
        #expect(slow.now < fast.now, "the slow timer fires less often: \(slow.now) against \(fast.now)")
    }

    @Test(
        "the earliest timer cancelled before it is due delays no other; a new timer due sooner than the wait wakes the thread"
    )
    func earliestCancelledAndSoonerAdded() async throws {
        let cancelled = Count()
        let later = Count()
        let sooner = Count()
        let first = try #require(EventThread.shared.every(.milliseconds(100)) { cancelled.add() })
        EventThread.shared.cancel(first)
        let laterToken = try #require(EventThread.shared.every(.milliseconds(250)) { later.add() })
        defer { EventThread.shared.cancel(laterToken) }
        #expect(await eventually(within: 10) { later.now >= 1 }, "the timer after a cancelled earliest one fired")
        #expect(cancelled.now == 0)

        let long = try #require(EventThread.shared.every(.seconds(3600)) {})
        defer { EventThread.shared.cancel(long) }
        let soonerToken = try #require(EventThread.shared.every(.milliseconds(50)) { sooner.add() })
        defer { EventThread.shared.cancel(soonerToken) }
        #expect(await eventually(within: 10) { sooner.now >= 3 }, "a timer added while the thread waits fired")
    }
}
