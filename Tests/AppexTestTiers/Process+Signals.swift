public import Foundation

extension Process {
    /// Starts the process as `run()` does, with no signal blocked in it.
    ///
    /// A child starts with the signal mask of the thread that spawns it, and a test runs on a
    /// thread of Swift's pool, which blocks nearly every signal (SIGTERM and SIGINT among them):
    /// a child started with `run()` there never gets the SIGTERM of `terminate()`. Three of the
    /// tests' servers outlived their tests so in each full run (2026-12-07), and a program's
    /// own handling of SIGTERM was tried only with it blocked. Every test starts its processes
    /// with this (`Scripts/test.sh` checks).
    public func runWithSignalsUnblocked() throws {
        var none = sigset_t()
        sigemptyset(&none)
        var blocked = sigset_t()
        pthread_sigmask(SIG_SETMASK, &none, &blocked)
        defer { pthread_sigmask(SIG_SETMASK, &blocked, nil) }
        try run()
    }
}
