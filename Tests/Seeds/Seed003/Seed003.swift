// swift-format-ignore-file
// Seed 003, Curity's "App Extension Support" (HAAPI SDK), its three Swift listings as the
// document prints them, byte for byte but for: the imports (the SDK's became AppexCurity; the
// storage's Foundation and AppexStore), the line of the table in Examples/README.md ("The seeds'
// code on Linux": `UserDefaults(suiteName:)` becomes `GroupDefaults(suiteName:)`), and after each
// placeholder comment one line of this app's that reports what happened (`report`). The second
// and third listings are statements: they run where the app calls them, in the functions below.
import AppexCurity
import AppexStore
import Foundation

// Shared storage backed by App-Group UserDefaults
struct SharedTokenStorage: Storage {
    private let defaults = GroupDefaults(suiteName: "group.com.example.app")!

    func read(key: String) throws -> Data? {
        defaults.data(forKey: key)
    }

    func write(key: String, data: Data) throws {
        defaults.set(data, forKey: key)
    }

    func delete(key: String) throws {
        defaults.removeObject(forKey: key)
    }
}

/// The second listing: the extension refreshes the host's token and writes it back.
func refreshHostToken() async throws {
let haapiAccessor = HaapiAccessorBuilder(haapiConfiguration: sharedConfiguration)
    .setHaapiAccessorOption(.oauth)
    .buildForHaapi()

let tokenResponse = try await haapiAccessor.oAuthTokenManager.refreshAccessToken(
    refreshToken: cachedRefreshToken
)

switch tokenResponse {
case .successfulToken(let success):
    // Persist the refreshed tokens back into shared storage
    try sharedStorage.write(key: "haapi.token", data: success.encodedData())
    report("successfulToken")
case .errorToken(let error):
    // Handle invalid_grant — extension can't recover; host app must re-authenticate
    report("errorToken \(error.error)")
    break
case .error(let err):
    // Transport or framework error
    report("error \(err)")
    break
}
}

/// The third listing: the registered client's settings, which `sharedConfiguration` names.
func makeDCRConfiguration() -> DCRConfiguration {
let dcrConfig = DCRConfiguration(
    templateClientId: "dcr-template-client-haapi-ios",
    clientRegistrationEndpointUrl: registrationEndpoint,
    storage: SharedKeychainStorage(accessGroup: "TEAMID.com.example.app.shared")
)
return dcrConfig
}
