public import AppexVocabulary

// The codes of the shared stores and the keychain.
extension AppexError.Code {
    /// The process's signed entitlements do not include the group (the Linux answer to
    /// `errSecMissingEntitlement`, -34018); the context names the entitlement and the group.
    public static var missingEntitlement: Self { .init("missing-entitlement") }
    /// The group belongs to another signing team than the process's.
    public static var teamMismatch: Self { .init("team-mismatch") }
    /// The process's bundle could not vouch for it: unsigned, invalid or missing.
    public static var untrustedProcess: Self { .init("untrusted-process") }
    /// The call needs a signed-in user and there is none: the host has not logged in (or
    /// logged out), or no session is stored.
    public static var notLoggedIn: Self { .init("not-logged-in") }
    /// Only the host app may do this (an extension asked).
    public static var hostOnly: Self { .init("host-only") }
    /// A keychain item with the same service, account and access group exists
    /// (`errSecDuplicateItem`, -25299).
    public static var duplicateItem: Self { .init("duplicate-item") }
    /// No keychain item matches (`errSecItemNotFound`, -25300).
    public static var itemNotFound: Self { .init("item-not-found") }
    /// The keychain's root key is missing or does not open this keychain (it was deleted,
    /// replaced, or belongs to another keychain): its items cannot be decrypted.
    public static var keyUnavailable: Self { .init("key-unavailable") }
    /// A stored item failed authentication: the database was edited or damaged outside Appex
    /// (`errSecDecode`, -26275).
    public static var corruptItem: Self { .init("corrupt-item") }
    /// Another process changed the state this call relied on (a data-sharing switch at the
    /// same moment, or a suite that is no longer the process's defaults); nothing was changed.
    public static var conflict: Self { .init("conflict") }
    /// The secure store has not been set up (onboarded) yet, or it was erased at the passcode
    /// retry limit: the host must onboard again.
    public static var notOnboarded: Self { .init("not-onboarded") }
}
