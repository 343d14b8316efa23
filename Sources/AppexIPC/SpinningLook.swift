import AppexSystem

/// A look for input that does not sleep, until a deadline: the executor's spin and a caller
/// reading the channel for its own reply both look this way.
///
/// Every 5 µs it lets the core's other threads run (``yieldCore()``): two processes spinning on
/// one core otherwise held each other off until a spin ended (blocks of 50 round trips took 4 ms
/// instead of 0.5, issue 48). A yield at every look cost a round trip about 1 µs more.
struct SpinningLook {
    private static let yieldInterval = Duration.microseconds(5)
    private let deadline: ContinuousClock.Instant
    private var nextYield: ContinuousClock.Instant

    /// A look that ends at `deadline`.
    init(until deadline: ContinuousClock.Instant) {
        self.deadline = deadline
        nextYield = .now + Self.yieldInterval
    }

    /// Whether the deadline has passed; never yields.
    var isOver: Bool { ContinuousClock.now >= deadline }

    /// Whether to look once more: `false` once the deadline passed. Yields the core when due.
    mutating func goesOn() -> Bool {
        let now = ContinuousClock.now
        if now >= deadline { return false }
        if now >= nextYield {
            yieldCore()
            nextYield = now + Self.yieldInterval
        }
        return true
    }
}
