public import AppexVocabulary

// The codes of the secure store and paired access keys.
extension AppexError.Code {
    /// The secure store is locked (never opened, locked, or locked after its idle timeout):
    /// open it with the passcode, or with a paired access key.
    public static var storeLocked: Self { .init("store-locked") }
    /// The passcode does not open the secure store; the message says how many attempts are left.
    public static var wrongPasscode: Self { .init("wrong-passcode") }
    /// A new passcode breaks the passcode policy; the message names every rule it breaks.
    public static var passcodePolicy: Self { .init("passcode-policy") }
    /// A passcode attempt came before the delay after the last failures ran out; the message
    /// says when the next attempt may come. The attempt was not counted.
    public static var passcodeDelay: Self { .init("passcode-delay") }
    /// The last allowed passcode attempt failed: the store's data key was destroyed, and the
    /// host must onboard again.
    public static var passcodeRetryLimit: Self { .init("passcode-retry-limit") }
    /// A paired access key (or one of its shares) does not open the secure store: a share alone,
    /// swapped shares, or bytes that are no share of this store.
    public static var wrongPairedKey: Self { .init("wrong-paired-key") }
    /// An auxiliary share of a paired access key that was replaced (the passcode changed):
    /// read the current one (`AuxiliarySecurityManager.getESPAKAuxiliary`) and ask again.
    public static var stalePairedKey: Self { .init("stale-paired-key") }
}
