@preconcurrency import Benchmark
import Foundation

/// Smoke mode (`Scripts/bench.sh --smoke`, run by `Scripts/test.sh`): with `APPEX_BENCH_SMOKE`
/// set, every benchmark registered so far runs one sample and no warm-up, so CI proves that
/// every benchmark builds, makes its fixture and runs to the end, in about a minute. Its figures
/// mean nothing. Each benchmark target calls this last in its `benchmarks` closure.
public func applySmokeModeIfAsked() {
    guard ProcessInfo.processInfo.environment["APPEX_BENCH_SMOKE"] != nil else { return }
    for benchmark in Benchmark.benchmarks {
        benchmark.configuration.warmupIterations = 0
        benchmark.configuration.maxIterations = 1
        benchmark.configuration.maxDuration = .seconds(300)
    }
}
