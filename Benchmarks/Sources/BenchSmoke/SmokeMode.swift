@preconcurrency import Benchmark
import Foundation

/// Smoke mode (`Scripts/bench.sh --smoke`, run by `Scripts/test.sh`): with `APPEX_BENCH_SMOKE`
/// set, every benchmark registered so far runs one sample and no warm-up, so CI proves that
/// every benchmark builds, makes its fixture (smaller: fixtureSize) and runs to the end. Its figures
/// mean nothing. Each benchmark target calls this last in its `benchmarks` closure.
public func applySmokeModeIfAsked() {
    guard isSmokeRun else { return }
    for benchmark in Benchmark.benchmarks {
        benchmark.configuration.warmupIterations = 0
        benchmark.configuration.maxIterations = 1
        benchmark.configuration.maxDuration = .seconds(300)
    }
}

/// Whether this is a smoke run (`Scripts/bench.sh --smoke`, `APPEX_BENCH_SMOKE` set).
public let isSmokeRun = ProcessInfo.processInfo.environment["APPEX_BENCH_SMOKE"] != nil

/// `full`, or `smoke` in a smoke run: the size of a fixture (extensions installed, widgets shown,
/// seconds watched). A smoke run proves that a benchmark builds its fixture and runs, not its
/// figure, and at full size the fixtures took most of its 8 minutes (1,000 and 10,000 signed
/// bundles, 100 widget processes in debug); the benchmark keeps its name.
public func fixtureSize(_ full: Int, smoke: Int) -> Int { isSmokeRun ? smoke : full }
