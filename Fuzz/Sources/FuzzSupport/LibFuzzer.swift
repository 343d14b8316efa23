// The entry point every fuzz target shares: hands the process to libFuzzer's driver.
//
// SwiftPM links an executable with `--defsym main=<module>_main`, so libFuzzer's own `main` never runs; a target's
// `@main` calls `LibFuzzer.run(_:)` instead, which starts the driver with the process's arguments.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libFuzzer's driver, for programs that keep their own `main`: parses the libFuzzer flags in `argv` and runs the
/// fuzzing loop (or the given inputs), calling `callback` once per input.
///
/// Mirrors `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size))`
/// from `compiler-rt/lib/fuzzer/FuzzerInterface.h`, linked in by `-sanitize=fuzzer`.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The test `LibFuzzer.run(_:)` was given: a C callback cannot capture it.
///
/// Written once, before the driver starts; libFuzzer then calls the callback from this one thread only (`-jobs` and
/// `-fork` run other processes), so nothing races on it.
nonisolated(unsafe) private var currentTest: ([UInt8]) -> Void = { _ in }

/// Runs libFuzzer over a test.
public enum LibFuzzer {
    /// Starts libFuzzer with the process's arguments (its flags, corpus directories or inputs to replay) and exits
    /// with its status; `test` runs once per input.
    ///
    /// `test` must not keep state from one input to the next that changes what it does: libFuzzer assumes an input
    /// always takes the same path. A crash, a sanitizer report or a timeout in it is a finding.
    public static func run(_ test: @escaping ([UInt8]) -> Void) -> Never {
        currentTest = test
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            guard let data, size > 0 else {
                currentTest([])
                return 0
            }
            currentTest(Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        }
        exit(status)
    }
}
