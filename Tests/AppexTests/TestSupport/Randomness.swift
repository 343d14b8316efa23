import Foundation
import Testing

/// SplitMix64: a seeded generator, so a run's random choices can be made again.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seed of a test that varies its random choices from run to run (the moments it kills a
/// process at, say): `APPEX_TEST_SEED` when set, to replay a failed run, a fresh one otherwise.
/// Printed when made; put it in the test's failure messages (its `description` says how to
/// replay), so the output of any failing run names it.
struct TestSeed: CustomStringConvertible {
    let value: UInt64
    private let test: String

    /// A seed for the running test.
    init() {
        // "AppexTests.DefaultsProcessTests/writerKilled()": the suite and function, a filter
        // that selects this test alone.
        let id = Test.current.map { "\($0.id)" } ?? "?"
        test = String(id.split(separator: "/").prefix(2).joined(separator: "/").split(separator: "(").first ?? "?")
        if let text = ProcessInfo.processInfo.environment["APPEX_TEST_SEED"], let seed = UInt64(text) {
            value = seed
        } else {
            value = UInt64.random(in: .min ... .max)  // the one unseeded draw: the seed itself
        }
        print("\(self.test): random \(description)")
    }

    /// A generator that makes this seed's choices.
    var generator: SeededGenerator { SeededGenerator(state: value) }

    var description: String { "seed \(value) (replay: APPEX_TEST_SEED=\(value) swift test --filter \(test))" }
}
