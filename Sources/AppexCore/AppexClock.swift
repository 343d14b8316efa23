public import AppexVocabulary
public import Foundation
import Synchronization

/// The time of day Appex reads for what lasts across processes and is kept in its files: leases
/// on data requests, their lifetimes, passcode delays, widget budgets and token expiry.
///
/// Every ``AppexEnvironment`` carries one (``AppexEnvironment/clock``), so whatever opens a store
/// with the environment reads the time from it. The system's clock is the default; a test gives
/// its environment a shifted clock and moves it, instead of sleeping until a lease or a delay
/// runs out:
///
/// ```swift
/// var environment = AppexEnvironment(home: temporaryFolder)
/// environment.clock = .shifted(by: .zero)
/// // … a lease of 30 s is taken …
/// try environment.clock.advance(by: .seconds(31))  // every copy of the clock moves
/// ```
///
/// A child process learns the clock's offset from `APPEX_CLOCK_OFFSET` (seconds), which
/// ``AppexEnvironment/variables`` sets for a shifted clock, so the processes of one test agree
/// on the time. Waits (a timeout, a deadline) are not read from this clock: they last real time.
public struct AppexClock: Sendable, Hashable, CustomStringConvertible {
    /// What copies of a shifted clock share: its offset from the system's clock, in seconds.
    private final class Offset: Sendable {
        let seconds: Mutex<Double>
        init(_ seconds: Double) { self.seconds = Mutex(seconds) }
    }

    /// `nil` for the system's clock.
    private let shared: Offset?

    /// The system's clock.
    public static let system = AppexClock(shared: nil)

    /// A clock `offset` ahead of the system's (behind, when negative), which
    /// ``advance(by:)`` moves: a new clock, apart from every other.
    public static func shifted(by offset: Duration) -> AppexClock {
        AppexClock(shared: Offset(Self.seconds(offset)))
    }

    private init(shared: Offset?) { self.shared = shared }

    /// The time on this clock.
    public var now: Date {
        guard let shared else { return Date() }
        return Date(timeIntervalSinceNow: shared.seconds.withLock { $0 })
    }

    /// How far this clock is ahead of the system's: zero for the system's own.
    public var offset: Duration { .milliseconds(offsetSeconds * 1000) }

    /// ``offset`` in seconds, as `APPEX_CLOCK_OFFSET` carries it.
    package var offsetSeconds: Double { shared?.seconds.withLock { $0 } ?? 0 }

    /// Moves this clock, and every copy of it, by `duration` (back, when negative).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidValue` for the system's clock, which
    ///   Appex does not move: make one with ``shifted(by:)``.
    public func advance(by duration: Duration) throws(AppexError) {
        guard let shared else {
            throw AppexError(
                .invalidValue,
                "the system's clock cannot be moved: give the environment AppexClock.shifted(by:) and move that",
                context: AppexError.Context(key: "clock")
            )
        }
        shared.seconds.withLock { $0 += Self.seconds(duration) }
    }

    /// `system`, or `shifted by N s`.
    public var description: String {
        shared == nil ? "system" : "shifted by \(offset)"
    }

    /// Whether both are the same clock (copies of one shifted clock are; two shifted clocks are
    /// not, even at the same offset).
    public static func == (lhs: AppexClock, rhs: AppexClock) -> Bool {
        lhs.shared.map(ObjectIdentifier.init) == rhs.shared.map(ObjectIdentifier.init)
    }

    /// Hashes the clock's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(shared.map(ObjectIdentifier.init))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
