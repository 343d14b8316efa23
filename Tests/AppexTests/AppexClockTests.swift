import AppexCore
import AppexTestTiers
import Foundation
import Testing

/// The environment's clock: what leases, delays, lifetimes, budgets and expiry read, and what
/// tests move instead of sleeping.
@Suite(.timed) struct AppexClockTests {
    @Test("a shifted clock reads the system's time plus its offset, and every copy moves with advance(by:)")
    func shiftedClockMoves() throws {
        let clock = AppexClock.shifted(by: .seconds(60))
        let copy = clock
        #expect(abs(clock.now.timeIntervalSinceNow - 60) < 1)
        try copy.advance(by: .seconds(3600))
        #expect(abs(clock.now.timeIntervalSinceNow - 3660) < 1)
        #expect(clock.offset == .seconds(3660) && clock == copy)
        let other = AppexClock.shifted(by: .seconds(3660))
        #expect(other != clock, "two shifted clocks are two clocks")
        try other.advance(by: .seconds(-3660))
        #expect(abs(other.now.timeIntervalSinceNow) < 1 && clock.offset == .seconds(3660))
    }

    @Test("the system's clock refuses to move, saying what to use instead; its offset is zero")
    func systemClockDoesNotMove() {
        let error = #expect(throws: AppexError.self) { try AppexClock.system.advance(by: .seconds(1)) }
        #expect(error?.code == .invalidValue && error?.message.contains("AppexClock.shifted(by:)") == true)
        #expect(AppexClock.system.offset == .zero && abs(AppexClock.system.now.timeIntervalSinceNow) < 1)
    }

    @Test(
        "APPEX_CLOCK_OFFSET shifts the environment's clock; a shifted clock's offset reaches a child's variables; no number means the system's clock"
    )
    func offsetThroughVariables() throws {
        let shifted = AppexEnvironment.from(variables: ["HOME": "/tmp/h", "APPEX_CLOCK_OFFSET": "11.5"])
        #expect(shifted.clock.offset == .milliseconds(11_500))
        #expect(abs(shifted.clock.now.timeIntervalSinceNow - 11.5) < 1)
        try shifted.clock.advance(by: .seconds(1))
        let child = AppexEnvironment.from(variables: shifted.variables.merging(["HOME": "/tmp/h"]) { a, _ in a })
        #expect(child.clock.offset == .milliseconds(12_500))
        for garbage in ["", "soon", "nan", "inf"] {
            let plain = AppexEnvironment.from(variables: ["HOME": "/tmp/h", "APPEX_CLOCK_OFFSET": garbage])
            #expect(plain.clock == .system, "\(garbage)")
        }
        #expect(AppexEnvironment(home: "/tmp/h").variables["APPEX_CLOCK_OFFSET"] == nil)
    }
}
