import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Synchronization
import Testing

@testable import AppexSecureStore

/// Onboarding flows, the background task scheduler, and `appex background run` launching a real
/// host app that answers its widgets' requests.
@Suite(.timed) struct BackgroundRunTests {
    let world: AppexTestEnvironment
    let app: String
    let host: ProcessContext
    static let group = "group.com.example.shared"

    init() throws {
        world = try AppexTestEnvironment()
        var recipe = AppexBundle.AppRecipe(
            executable: SecureStoreProcessTests.fixture,
            bundleIdentifier: "com.example.hostapp"
        )
        recipe.entitlements = Entitlements(
            applicationGroups: [Self.group],
            keychainAccessGroups: ["com.example.shared"]
        )
        recipe.signingKey = world.team
        app = try AppexBundle.makeApp(at: world.root.appending("HostApp.app"), from: recipe).path
        host = try ProcessContext(bundleAt: app)
    }

    var cheapStore: SecureStore.Configuration {
        var configuration = SecureStore.Configuration(environment: world.environment)
        configuration.keyDerivation = PasscodeKeyDerivation(rounds: 1 << 10, blockSize: 8, parallelism: 1)
        return configuration
    }

    struct Question: Codable, Hashable, Sendable {
        var key: String
        var n: Int
    }

    func widgetRequests() throws -> (AuxiliaryDataRequestManager, Data) {
        let widget = ProcessContext(
            bundleIdentifier: "com.example.hostapp.widget",
            team: world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: [Self.group], keychainAccessGroups: ["com.example.shared"]),
            kind: .appExtension
        )
        let security = try AuxiliarySecurityManager(
            hostBundleIdentifier: "com.example.hostapp",
            context: widget,
            environment: world.environment
        )
        let requests = AuxiliaryDataRequestManager(
            dataStore: try AuxiliaryDataStore(
                group: AppGroup(Self.group, context: widget, environment: world.environment),
                encryptionKey: security.getAuxiliaryDataEncryptionKey()
            )
        )
        return (requests, try security.getESPAKAuxiliary())
    }

    @Test(
        "a flow onboards (asking for a new passcode), restores (asking for it), and in the background answers requests with no passcode"
    )
    func flow() async throws {
        let asked = Mutex<[Bool]>([])
        let handlers: [String: AuxiliaryCommunicationStep.Handler] = [
            "echo": { claim, access throws(AppexError) in
                Data("\(try access.get("secret", as: String.self) ?? "?"):\(try claim.info(as: Question.self).n)".utf8)
            }
        ]
        let flow = OnboardingFlow(
            steps: [
                StoreManagerStep(configuration: cheapStore),
                AuxiliaryCommunicationStep(group: Self.group, handlers: handlers),
            ],
            backgroundSteps: [
                StoreManagerStep(configuration: cheapStore),
                AuxiliaryCommunicationStep(group: Self.group, handlers: handlers),
            ]
        )
        var context = OnboardingContext(host: host, environment: world.environment) { isNew in
            asked.withLock { $0.append(isNew) }
            return "flow passcode 1"
        }
        try await flow.start(&context, store: cheapStore)
        #expect(asked.withLock { $0 } == [true])
        #expect(context.auxiliaryParameters?.sharedAccessGroup == "com.example.shared")
        try context.store?.put("s3cret", forKey: "secret")
        context.store?.lock()
        var again = OnboardingContext(host: host, environment: world.environment) { isNew in
            asked.withLock { $0.append(isNew) }
            return "flow passcode 1"
        }
        try await flow.start(&again, store: cheapStore)
        #expect(asked.withLock { $0 } == [true, false])
        let (requests, share) = try widgetRequests()
        let one = try requests.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "secret", n: 1), eSPAKAux: share, kind: "echo")
        )
        let unknown = try requests.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "secret", n: 2), eSPAKAux: share, kind: "mystery")
        )
        var background = OnboardingContext(host: host, environment: world.environment) { _ throws(AppexError) in
            throw AppexError(.refused, "no user in the background")
        }
        try await flow.runInBackground(&background)
        #expect(background.answeredRequests == 2)
        #expect(try requests.getDataRequest(one.id, infoType: Question.self)?.response == Data("s3cret:1".utf8))
        let failed = try #require(try requests.getDataRequest(unknown.id, infoType: Question.self))
        #expect(
            failed.response == nil && failed.failure?.contains("no handler for data requests of kind mystery") == true
        )
    }

    @Test(
        "submitted requests persist; only due ones run, each removed before its handler; unknown identifiers cannot be submitted"
    )
    func scheduler() async throws {
        let scheduler = try BackgroundTaskScheduler(context: host, environment: world.environment)
        let ran = Mutex<[String]>([])
        for identifier in ["a", "b"] {
            #expect(
                scheduler.register(forTaskWithIdentifier: identifier) { task in
                    ran.withLock { $0.append(task.identifier) }
                    task.setTaskCompleted(success: true)
                }
            )
        }
        #expect(!scheduler.register(forTaskWithIdentifier: "a") { _ in })
        try scheduler.submit(AppRefreshTaskRequest(identifier: "a"))
        try scheduler.submit(AppRefreshTaskRequest(identifier: "b", earliestBeginDate: Date() + 3600))
        let unknown = try #require(throws: AppexError.self) {
            try scheduler.submit(AppRefreshTaskRequest(identifier: "c"))
        }
        #expect(unknown.code == .notFound)
        #expect(
            try BackgroundTaskScheduler.dueTaskIdentifiers(
                hostBundleIdentifier: "com.example.hostapp",
                environment: world.environment
            ) == ["a"]
        )
        #expect(try await scheduler.runDueTasks() == ["a"])
        #expect(ran.withLock { $0 } == ["a"])
        #expect(try scheduler.pendingTaskRequests().map(\.identifier) == ["b"])
        #expect(try await scheduler.runDueTasks(now: Date() + 7200) == ["b"])
        // A task that submits itself again while it runs keeps its new request.
        #expect(
            scheduler.register(forTaskWithIdentifier: "again") { task in
                try? scheduler.submit(
                    AppRefreshTaskRequest(identifier: task.identifier, earliestBeginDate: Date() + 900)
                )
            }
        )
        try scheduler.submit(AppRefreshTaskRequest(identifier: "again"))
        #expect(try await scheduler.runDueTasks() == ["again"])
        #expect(try scheduler.pendingTaskRequests().map(\.identifier) == ["again"])
        let widget = ProcessContext(
            bundleIdentifier: "com.example.hostapp.widget",
            team: world.team.teamIdentifier,
            entitlements: .none,
            kind: .appExtension
        )
        let refused = try #require(throws: AppexError.self) {
            try BackgroundTaskScheduler(context: widget, environment: world.environment)
        }
        #expect(refused.code == .hostOnly)
    }

    @Test(
        "appex background run launches nothing when nothing is due, and otherwise the host app, which answers every pending request and submits itself again"
    )
    func backgroundRun() async throws {
        let store = try SecureStore(context: host, configuration: cheapStore)
        try store.onboard(passcode: "host passcode 1")
        try store.put("s3cret", forKey: "secret")
        let (requests, share) = try widgetRequests()
        var ids: [String: Int] = [:]
        for n in 1...3 {
            ids[
                try requests.putDataRequest(
                    AuxiliaryDataRequest(info: Question(key: "secret", n: n), eSPAKAux: share, kind: "echo")
                ).id
            ] = n
        }
        let idle = try await appex("background", "run", "--host", app, in: world)
        #expect(
            idle.status == 0 && idle.standardOutput.contains("nothing due for com.example.hostapp"),
            "\(idle.standardError)"
        )
        #expect(try requests.listDataRequests().allSatisfy { $0.completionTime == nil })
        let scheduler = try BackgroundTaskScheduler(context: host, environment: world.environment)
        scheduler.register(forTaskWithIdentifier: "com.example.refresh") { _ in }
        try scheduler.submit(AppRefreshTaskRequest(identifier: "com.example.refresh"))
        let ran = try await appex("background", "run", "--host", app, in: world)
        #expect(ran.status == 0, "\(ran.standardError)")
        #expect(ran.standardOutput.contains("answered 3"))
        #expect(ran.standardOutput.contains("ran in the background: com.example.refresh"))
        for (id, n) in ids {
            #expect(try requests.getDataRequest(id, infoType: Question.self)?.response == Data("s3cret:\(n * 2)".utf8))
        }
        let next = try scheduler.pendingTaskRequests()
        #expect(next.count == 1 && (next.first?.earliestBeginDate ?? .distantPast) > Date() + 800)
        let after = try await appex("background", "run", "--host", app, in: world)
        #expect(after.standardOutput.contains("nothing due"))
    }
}
