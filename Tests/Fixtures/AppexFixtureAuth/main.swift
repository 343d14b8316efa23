// A process that uses the host's OAuth session as an extension would, for the token tests.
//
//     AppexFixtureAuth race CONFIG TEAM   — as an app extension of TEAM (entitled to the
//                                           configuration's app group and to the keychain group
//                                           TEAMID.com.example.shared): for each line "go" on
//                                           standard input, gets a fresh access token through the
//                                           shared single-flight path and prints "ok <token>" or
//                                           "error <code> <message>"
//
// APPEX_HOME and APPEX_KEYS_DIR say where state lives.
import AppexAuth
import AppexCore
import AppexStore
import Foundation

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count == 4, arguments[1] == "race" else {
    FileHandle.standardError.write(Data("usage: AppexFixtureAuth race CONFIG TEAM\n".utf8))
    exit(2)
}
let configuration: OAuthConfiguration
do { configuration = try OAuthConfiguration.load(from: arguments[2]) } catch {
    FileHandle.standardError.write(Data("AppexFixtureAuth: \(error)\n".utf8))
    exit(1)
}
let context = ProcessContext(
    bundleIdentifier: "com.example.hostapp.widget",
    team: TeamIdentifier(rawValue: arguments[3]),
    entitlements: Entitlements(
        applicationGroups: [configuration.appGroup],
        keychainAccessGroups: ["TEAMID.com.example.shared"]
    ),
    kind: .appExtension
)
let manager: OAuthTokenManager
do {
    manager = try AccessorBuilder(configuration: configuration, context: context).option(.oauth).build().tokenManager
} catch {
    FileHandle.standardError.write(Data("AppexFixtureAuth: \(error)\n".utf8))
    exit(1)
}
say("ready")
while let line = readLine() {
    guard line == "go" else { continue }
    do {
        // The token itself, for the test to compare across processes (a test fixture only).
        let token = try await manager.withFreshAccessToken { $0 }
        say("ok \(token)")
    } catch let error as AppexError {
        say("error \(error.code.name) \(error.message)")
    } catch {
        say("error other \(error)")
    }
}
