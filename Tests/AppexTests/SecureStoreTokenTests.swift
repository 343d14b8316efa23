import AppexAuth
import AppexAuthLogin
import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@testable import AppexSecureStore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session's tokens behind the app passcode: the host logs in and refreshes with them in its
/// secure store; an extension cannot read them.
@Suite(.timed) struct SecureStoreTokenTests {
    init() async throws { try await OAuthServer.start() }

    @Test(
        "a host logged in with its tokens in the secure store uses them; the shared keychain holds none; an extension finds no session"
    )
    func tokensBehindThePasscode() async throws {
        let auth = try AuthWorld()
        var configuration = SecureStore.Configuration(environment: auth.world.environment)
        configuration.keyDerivation = PasscodeKeyDerivation(rounds: 1 << 10, blockSize: 8, parallelism: 1)
        configuration.sharedAccessGroup = AuthWorld.keychainGroup
        let store = try SecureStore(context: auth.context(.hostApp), configuration: configuration)
        try store.onboard(passcode: "host passcode 1")
        let host = try HostAccessorBuilder(
            configuration: auth.configuration(),
            context: auth.context(.hostApp),
            environment: auth.world.environment
        )
        .option(.oauth).tokenStorage(SecureStoreTokenStorage(store: store)).build()
        try await host.login.password(user: "ada", password: "lovelace")
        let (data, response) = try await host.tokenManager.data(
            for: URLRequest(url: OAuthServer.issuer.appendingPathComponent("api/me"))
        )
        #expect(response.statusCode == 200 && String(decoding: data, as: UTF8.self).contains("Ada"))
        #expect(try store.keys().contains { $0.hasPrefix(SecureStoreTokenStorage.keyPrefix) })
        let keychain = try SharedKeychain(context: .owner, environment: auth.world.environment)
        #expect(try keychain.items(matching: KeychainQuery(service: KeychainTokenStorage.service)).isEmpty)
        let widget = try auth.extensionManager()
        #expect(try widget.storedTokens() == nil, "the extension reads no token: they are behind the passcode")
        store.lock()
        let locked = #expect(throws: AppexError.self) { try host.tokenManager.storedTokens() }
        #expect(locked?.code == .storage || locked?.code == .storeLocked)
    }
}
