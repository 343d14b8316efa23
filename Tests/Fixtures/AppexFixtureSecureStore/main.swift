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
//     AppexFixtureSecureStore TEAM serve                          — answers the data requests of app group
//                                                                   group.com.example.shared (leases of
//                                                                   300 ms): opens the store with each
//                                                                   request's share, answers "<value of
//                                                                   KEY>:<n * 2>" for info {key: KEY, n} after
//                                                                   10 ms (a server's answer), and prints each
//                                                                   id answered; ends when no request is
//                                                                   pending
//
//     AppexFixtureSecureStore TEAM as-extension                   — as the host's widget (an app extension of
//                                                                   the same team and groups): tries to open
//                                                                   the store, read the host's primary share
//                                                                   and schedule host work; prints each
//                                                                   refusal's code
//
// Launched by `appex background run` (APPEX_BACKGROUND_RUN=1) as the executable of a host app, it
// runs as that app: task com.example.refresh answers the group's pending requests with the
// background steps of an onboarding flow (kind "echo": "<value of KEY>:<n * 2>"), prints
// "answered N", and submits itself again for 15 minutes later.
import AppexCore
import AppexSecureStore
import AppexStore
import Foundation

func context(team: String) -> ProcessContext {
    ProcessContext(
        bundleIdentifier: "com.example.hostapp",
        team: TeamIdentifier(rawValue: team),
        entitlements: Entitlements(
            applicationGroups: ["group.com.example.shared"],
            keychainAccessGroups: ["com.example.shared"]
        )
    )
}

func say(_ line: String) {
    // Straight to the descriptor: a line printed is a step committed, even under kill -9.
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

struct Question: Codable {
    var key: String
    var n: Int
}

/// The background run: the app's due tasks.
func backgroundRun() async throws -> Int32 {
    let host = try ProcessContext.current()
    var configuration = SecureStore.Configuration()
    configuration.keyDerivation = PasscodeKeyDerivation(rounds: 1 << 10, blockSize: 8, parallelism: 1)
    let flow = OnboardingFlow(
        steps: [],
        backgroundSteps: [
            StoreManagerStep(configuration: configuration),
            AuxiliaryCommunicationStep(
                group: "group.com.example.shared",
                handlers: [
                    "echo": { claim, access throws(AppexError) in
                        let question = try claim.info(as: Question.self)
                        let value = try access.get(question.key, as: String.self) ?? "?"
                        return Data("\(value):\(question.n * 2)".utf8)
                    }
                ]
            ),
        ]
    )
    let scheduler = try BackgroundTaskScheduler(context: host)
    scheduler.register(forTaskWithIdentifier: "com.example.refresh") { task in
        var context = OnboardingContext(host: host, passcode: { _ in nil })
        do {
            try await flow.runInBackground(&context)
            say("answered \(context.answeredRequests)")
            try scheduler.submit(AppRefreshTaskRequest(identifier: task.identifier, earliestBeginDate: Date() + 900))
            task.setTaskCompleted(success: true)
        } catch {
            FileHandle.standardError.write(Data("background run: \(error)\n".utf8))
            task.setTaskCompleted(success: false)
        }
    }
    let ran = try await scheduler.runDueTasks()
    say("ran \(ran.joined(separator: ","))")
    return 0
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
    case "as-extension":
        let widget = ProcessContext(
            bundleIdentifier: "com.example.hostapp.widget",
            team: TeamIdentifier(rawValue: arguments[1]),
            entitlements: Entitlements(
                applicationGroups: ["group.com.example.shared"],
                keychainAccessGroups: ["com.example.shared"]
            ),
            kind: .appExtension
        )
        func refusal(_ what: String, _ body: () throws(AppexError) -> Void) {
            do {
                try body()
                say("\(what): allowed")
            } catch {
                say("\(what): \(error.code)")
            }
        }
        refusal("store") { () throws(AppexError) in _ = try SecureStore(context: widget, configuration: configuration) }
        refusal("primary") { () throws(AppexError) in
            let keychain = try SharedKeychain(context: widget)
            _ = try keychain.item(
                service: "appex.securestore.com.example.hostapp.SecureStore",
                account: "spak.primary.1",
                accessGroup: "private:com.example.hostapp"
            )
        }
        refusal("scheduler") { () throws(AppexError) in _ = try BackgroundTaskScheduler(context: widget) }
        refusal("share") { () throws(AppexError) in
            _ = try AuxiliarySecurityManager(hostBundleIdentifier: "com.example.hostapp", context: widget)
                .getESPAKAuxiliary()
        }
    case "serve":
        let host = context(team: arguments[1])
        let security = try AuxiliarySecurityManager(hostBundleIdentifier: "com.example.hostapp", context: host)
        let requests = AuxiliaryDataRequestManager(
            dataStore: try AuxiliaryDataStore(
                group: AppGroup("group.com.example.shared", context: host),
                encryptionKey: security.getAuxiliaryDataEncryptionKey()
            )
        )
        while true {
            guard let claim = try requests.claimDataRequest(lease: .milliseconds(300)) else {
                if try requests.listDataRequests().allSatisfy({ $0.completionTime != nil }) { return 0 }
                Thread.sleep(forTimeInterval: 0.05)  // a lease held by a killed server runs out
                continue
            }
            let question = try claim.info(as: Question.self)
            try store.open(eSPAKAuxiliary: claim.eSPAKAux)
            let value = try store.get(question.key, as: String.self) ?? "?"
            store.lock()
            Thread.sleep(forTimeInterval: 0.01)  // the server's answer
            do {
                try requests.completeDataRequest(claim, with: "\(value):\(question.n * 2)")
                say(claim.id)
            } catch {
                guard error.code == .conflict else { throw error }
            }
        }
    default:
        return 2
    }
    return 0
}

if BackgroundTaskScheduler.isBackgroundLaunch {
    do { exit(try await backgroundRun()) } catch {
        FileHandle.standardError.write(Data("AppexFixtureSecureStore: \(error)\n".utf8))
        exit(1)
    }
}
do { exit(try run()) } catch {
    FileHandle.standardError.write(Data("AppexFixtureSecureStore: \(error)\n".utf8))
    exit(1)
}
