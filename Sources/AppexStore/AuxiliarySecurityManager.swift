public import AppexCore
public import Foundation

/// An extension's side of a host's secure store (SAP's `AuxiliarySecurityManager`): the
/// auxiliary share of the store's paired access key, which every data request to the host must
/// carry, and the key the host encrypts its answers with.
///
/// ```swift
/// let security = try AuxiliarySecurityManager(hostBundleIdentifier: "com.myapp.MyApp")
/// let share = try security.getESPAKAuxiliary()              // goes into each data request
/// let answers = try security.getAuxiliaryDataEncryptionKey() // opens the host's answers
/// ```
///
/// Both live in the keychain access group the host shares with its extensions (the extension's
/// default group unless one is named), published by the host's `SecureStore` when it is set up
/// and at every passcode change. The share is sealed under the host's own share: it opens
/// nothing alone, and after a passcode change the host refuses it (`stale-paired-key`) until the
/// extension reads the new one here.
public struct AuxiliarySecurityManager: Sendable {
    /// The host app whose store this is.
    public let hostBundleIdentifier: String
    /// The store's name (`SecureStore.Configuration.name`).
    public let storeName: String
    private let keychain: SharedKeychain
    private let accessGroup: String?

    /// The extension's view of `hostBundleIdentifier`'s store `storeName`.
    ///
    /// - Parameters:
    ///   - hostBundleIdentifier: the host app whose store this is.
    ///   - storeName: the store's name (`SecureStore.Configuration.name`).
    ///   - accessGroup: the shared keychain group; `nil`: the process's default group.
    ///   - context: who is asking (the running extension by default).
    ///   - environment: where the keychain lives (`APPEX_HOME`, `APPEX_KEYS_DIR`).
    /// - Throws: ``/AppexVocabulary/AppexError`` from opening the keychain or checking the process.
    public init(
        hostBundleIdentifier: String,
        storeName: String = "SecureStore",
        accessGroup: String? = nil,
        context: ProcessContext? = nil,
        environment: AppexEnvironment = .current()
    ) throws(AppexError) {
        self.hostBundleIdentifier = hostBundleIdentifier
        self.storeName = storeName
        self.accessGroup = accessGroup
        let asker: ProcessContext
        if let context { asker = context } else { asker = try ProcessContext.current() }
        keychain = try SharedKeychain(context: asker, environment: environment)
    }

    /// The encrypted auxiliary share of the store's current paired access key (SAP's
    /// `eSPAKAuxiliary`), as data requests carry it.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `notOnboarded` when the host has published none (no store, or it
    ///   was erased); `missingEntitlement` for a group the process may not use.
    public func getESPAKAuxiliary() throws(AppexError) -> Data {
        try read(Self.eSPAKAccount, what: "auxiliary share")
    }

    /// The 256-bit key (32 bytes) the host encrypts its answers to data requests with, and the
    /// extension opens them with.
    ///
    /// - Throws: as ``getESPAKAuxiliary()``.
    public func getAuxiliaryDataEncryptionKey() throws(AppexError) -> Data {
        try read(Self.dataKeyAccount, what: "auxiliary data encryption key")
    }

    private func read(_ account: String, what: String) throws(AppexError) -> Data {
        let service = Self.service(host: hostBundleIdentifier, store: storeName)
        guard let item = try keychain.item(service: service, account: account, accessGroup: accessGroup) else {
            throw AppexError(
                .notOnboarded,
                "\(hostBundleIdentifier) has published no \(what) for its secure store \(storeName) (keychain service \(service)): the host has not set the store up, or it was erased",
                context: AppexError.Context(
                    bundleIdentifier: hostBundleIdentifier,
                    group: accessGroup ?? keychain.defaultAccessGroup
                )
            )
        }
        return item.data
    }

    /// The keychain service of a host's store's shares and keys.
    package static func service(host: String, store: String) -> String { "appex.securestore.\(host).\(store)" }
    /// The shared item that holds the encrypted auxiliary share.
    package static let eSPAKAccount = "eSPAKAuxiliary"
    /// The shared item that holds the auxiliary data encryption key.
    package static let dataKeyAccount = "auxiliaryDataEncryptionKey"
}
