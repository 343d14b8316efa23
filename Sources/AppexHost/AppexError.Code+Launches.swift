public import AppexVocabulary

// The codes of the launcher and its sandbox.
extension AppexError.Code {
    /// The extension's point requires a sandbox facility this kernel lacks (Landlock, seccomp,
    /// user namespaces, a pids cgroup): the launch was refused; the message names what is missing.
    public static var sandboxUnavailable: Self { .init("sandbox-unavailable") }
    /// The extension crashed too often; it is not relaunched.
    public static var crashBudgetExhausted: Self { .init("crash-budget-exhausted") }
}
