// A host app's process using its secure store, for the tests that kill it (kill -9) or look at
// what it leaves on disk. It acts as host com.example.hostapp of TEAM, entitled to the keychain
// group com.example.shared; APPEX_HOME and APPEX_KEYS_DIR say where state lives; scrypt runs
// at N = 2^10 (the tests' cost) unless APPEX_FIXTURE_STANDARD_KDF is set.
//
//     AppexFixtureSecureStore TEAM onboard PASSCODE KEY=VALUE...  — makes the store, stores the values
//     AppexFixtureSecureStore TEAM wrong-loop WRONG               — tries WRONG forever (no delays,
//                                                                   no retry limit below 1000), printing
//                                                                   the durable count after each attempt
//     AppexFixtureSecureStore TEAM change-loop A B                — changes the passcode A → B → A ...
//                                                                   forever, printing each one in force
import AppexCore
import AppexSecureStore
import AppexStore
import Foundation

func context(team: String) -> ProcessContext {
    ProcessContext(
        bundleIdentifier: "com.example.hostapp",
        team: TeamIdentifier(rawValue: team),
        entitlements: Entitlements(applicationGroups: [], keychainAccessGroups: ["com.example.shared"])
    )
}

func say(_ line: String) {
    // Straight to the descriptor: a line printed is a step committed, even under kill -9.
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func run() throws -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count >= 3 else {
        FileHandle.standardError.write(
            Data("usage: AppexFixtureSecureStore TEAM onboard|wrong-loop|change-loop ...\n".utf8)
        )
        return 2
    }
    var configuration = SecureStore.Configuration()
    if ProcessInfo.processInfo.environment["APPEX_FIXTURE_STANDARD_KDF"] == nil {
        configuration.keyDerivation = PasscodeKeyDerivation(rounds: 1 << 10, blockSize: 8, parallelism: 1)
    }
    configuration.policy.freeAttempts = 1000
    configuration.policy.retryLimit = 1000
    let store = try SecureStore(context: context(team: arguments[1]), configuration: configuration)
    switch arguments[2] {
    case "onboard" where arguments.count >= 4:
        try store.onboard(passcode: arguments[3])
        for pair in arguments.dropFirst(4) {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            try store.put(parts.count == 2 ? parts[1] : "", forKey: parts[0])
        }
        say("onboarded")
    case "wrong-loop" where arguments.count >= 4:
        while true {
            do { try store.open(passcode: arguments[3]) } catch {
                guard error.code == .wrongPasscode else { throw error }
            }
            say("\(try store.failedAttempts)")
        }
    case "change-loop" where arguments.count >= 5:
        var passcodes = (arguments[3], arguments[4])
        while true {
            try store.changePasscode(from: passcodes.0, to: passcodes.1)
            say(passcodes.1)
            passcodes = (passcodes.1, passcodes.0)
        }
    default:
        return 2
    }
    return 0
}

do { exit(try run()) } catch {
    FileHandle.standardError.write(Data("AppexFixtureSecureStore: \(error)\n".utf8))
    exit(1)
}
