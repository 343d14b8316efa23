import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@testable import AppexSecureStore

/// Auxiliary data requests: a widget asks through the app group's queue, the host answers with
/// its secure store opened by the request's share.
@Suite(.timed) struct AuxiliaryDataRequestTests {
    let world: AppexTestEnvironment
    init() throws { world = try AppexTestEnvironment() }

    static let group = "group.com.example.shared"

    struct Question: Codable, Hashable, Sendable {
        var key: String
        var n: Int
    }

    func context(_ id: String, kind: AppexBundle.Kind) -> ProcessContext {
        ProcessContext(
            bundleIdentifier: id,
            team: world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: [Self.group], keychainAccessGroups: ["com.example.shared"]),
            kind: kind
        )
    }

    var host: ProcessContext { context("com.example.hostapp", kind: .hostApp) }
    var widget: ProcessContext { context("com.example.hostapp.widget", kind: .appExtension) }

    /// The host's store (cheap scrypt), onboarded, holding `secret` = "s3cret".
    func onboardedStore() throws -> SecureStore {
        var configuration = SecureStore.Configuration(environment: world.environment)
        configuration.keyDerivation = PasscodeKeyDerivation(rounds: 1 << 10, blockSize: 8, parallelism: 1)
        let store = try SecureStore(context: host, configuration: configuration)
        try store.onboard(passcode: "host passcode 1")
        try store.put("s3cret", forKey: "secret")
        store.lock()
        return store
    }

    /// `context`'s manager of the group's requests, with the key the host published.
    func manager(_ context: ProcessContext, timeToLive: Duration = .seconds(600)) throws -> AuxiliaryDataRequestManager
    {
        let security = try AuxiliarySecurityManager(
            hostBundleIdentifier: "com.example.hostapp",
            context: context,
            environment: world.environment
        )
        var manager = try AuxiliaryDataRequestManager(
            group: AppGroup(Self.group, context: context, environment: world.environment),
            security: security
        )
        manager.timeToLive = timeToLive
        return manager
    }

    func share() throws -> Data {
        try AuxiliarySecurityManager(
            hostBundleIdentifier: "com.example.hostapp",
            context: widget,
            environment: world.environment
        )
        .getESPAKAuxiliary()
    }

    @Test(
        "a widget's request, answered by the host with its store opened by the request's share, wakes the waiting widget"
    )
    func roundTrip() async throws {
        let store = try onboardedStore()
        let widgetSide = try manager(widget)
        let asked = try widgetSide.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "secret", n: 21), eSPAKAux: share(), kind: "echo")
        )
        #expect(!asked.isCompleted)
        let waiting = Task { try await widgetSide.completion(of: asked, within: .seconds(20)) }
        let hostSide = try manager(host)
        let claim = try #require(try hostSide.claimDataRequest())
        #expect(claim.id == asked.id && claim.kind == "echo")
        try store.open(eSPAKAuxiliary: claim.eSPAKAux)
        let question = try claim.info(as: Question.self)
        try hostSide.completeDataRequest(
            claim,
            with: "\(try store.get(question.key, as: String.self) ?? "?"):\(question.n * 2)"
        )
        let answered = try await waiting.value
        #expect(try answered.response(as: String.self) == "s3cret:42")
        #expect(answered.completionTime != nil && answered.creationTime <= answered.lastModifiedTime)
        #expect(try hostSide.claimDataRequest() == nil)
    }

    @Test(
        "only commits that change what a waiter waits for signal it: a put and an answer do; a claim, and a host serving with nothing to do, do not (it never wakes itself)"
    )
    func whatSignalsWaiters() async throws {
        _ = try onboardedStore()
        let (widgetSide, hostSide) = (try manager(widget), try manager(host))
        let signal = widgetSide.dataStore.path + "-committed"
        func lastSignal() throws -> Date {
            try #require(try FileManager.default.attributesOfItem(atPath: signal)[.modificationDate] as? Date)
        }
        #expect(FileManager.default.fileExists(atPath: signal), "the store's signal file is there from the start")
        var seen = try lastSignal()
        // A host serving an empty queue: each pass's claim finds nothing, changes nothing, and
        // signals nothing (were it signalled, the host would wake itself at once, forever).
        let serving = Task {
            try await hostSide.serveDataRequestsUntilCancelled { _ throws(AppexError) in Data("answer".utf8) }
        }
        try await Task.sleep(for: .milliseconds(400))  // four of its 100 ms wakeups
        #expect(try lastSignal() == seen, "a host with nothing to serve signalled a commit")
        serving.cancel()
        _ = try? await serving.value
        let asked = try widgetSide.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "secret", n: 1), eSPAKAux: share(), kind: "echo")
        )
        #expect(try lastSignal() > seen, "the put did not signal")
        seen = try lastSignal()
        try await Task.sleep(for: .milliseconds(20))  // past the clock's granularity
        let claim = try #require(try hostSide.claimDataRequest())
        #expect(claim.id == asked.id)
        #expect(try lastSignal() == seen, "the claim signalled the widget, which waits for the answer")
        try hostSide.completeDataRequest(claim, response: Data("42".utf8))
        #expect(try lastSignal() > seen, "the answer did not signal")
    }

    @Test("a widget waiting for an answer stops, saying so, when its task is cancelled")
    func cancelledWait() async throws {
        _ = try onboardedStore()
        let widgetSide = try manager(widget)
        let asked = try widgetSide.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "secret", n: 2), eSPAKAux: share(), kind: "echo")
        )
        let waiting = Task { try await widgetSide.completion(of: asked, within: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        let error = await #expect(throws: AppexError.self) { try await waiting.value }
        #expect(error?.code == .cancelled)
    }

    @Test(
        "serving by kind answers each request with its kind's handler and fails a kind with no handler, naming the kinds the host answers"
    )
    func servingByKind() async throws {
        _ = try onboardedStore()
        let widgetSide = try manager(widget)
        let echo = try widgetSide.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "e", n: 1), eSPAKAux: share(), kind: "echo")
        )
        let double = try widgetSide.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "d", n: 21), eSPAKAux: share(), kind: "double")
        )
        let mystery = try widgetSide.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "m", n: 0), eSPAKAux: share(), kind: "mystery")
        )
        let served = try await manager(host).serveDataRequests(handlers: [
            "echo": { claim throws(AppexError) in Data(try claim.info(as: Question.self).key.utf8) },
            "double": { claim throws(AppexError) in Data("\(try claim.info(as: Question.self).n * 2)".utf8) },
        ])
        #expect(served == 3)
        var answers: [AuxiliaryDataRequest<Question>] = []
        for request in [echo, double, mystery] {
            answers.append(try #require(try widgetSide.getDataRequest(request.id, infoType: Question.self)))
        }
        #expect(answers[0].response == Data("e".utf8) && answers[1].response == Data("42".utf8))
        #expect(answers[2].response == nil)
        #expect(
            answers[2].failure?.contains("no handler for data requests of kind mystery (it has: double, echo)") == true
        )
        #expect(try manager(host).claimDataRequest() == nil)
    }

    @Test(
        "identical pending requests are one (its share renewed); different info or kind are not; answered ones are not reused"
    )
    func coalescing() throws {
        _ = try onboardedStore()
        let requests = try manager(widget)
        let first = try requests.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "a", n: 1), eSPAKAux: Data([1]), kind: "k")
        )
        let again = try requests.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "a", n: 1), eSPAKAux: Data([2]), kind: "k")
        )
        #expect(again.id == first.id)
        #expect(try requests.getDataRequest(first.id, infoType: Question.self)?.eSPAKAux == Data([2]))
        let otherInfo = try requests.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "a", n: 2), eSPAKAux: Data([1]), kind: "k")
        )
        let otherKind = try requests.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "a", n: 1), eSPAKAux: Data([1]), kind: "j")
        )
        #expect(Set([first.id, otherInfo.id, otherKind.id]).count == 3)
        let host = try manager(self.host)
        while let claim = try host.claimDataRequest() {
            try host.completeDataRequest(claim, response: Data("done".utf8))
        }
        let afterAnswer = try requests.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "a", n: 1), eSPAKAux: Data([1]), kind: "k")
        )
        #expect(afterAnswer.id != first.id)
        #expect(try requests.listDataRequests().count == 4)
    }

    @Test(
        "a lease holds a request from other hosts until it runs out; then another takes it, and only the new holder's answer counts"
    )
    func leases() throws {
        _ = try onboardedStore()
        let requests = try manager(widget)
        let asked = try requests.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "a", n: 1), eSPAKAux: Data([1]), kind: "k")
        )
        let host = try manager(self.host)
        let first = try #require(try host.claimDataRequest(lease: .seconds(1)))
        #expect(try host.claimDataRequest() == nil, "taken while the lease holds")
        try world.clock.advance(by: .milliseconds(1200))  // the lease runs out on the queue's clock
        let second = try #require(try host.claimDataRequest(lease: .seconds(30)))
        #expect(second.id == first.id)
        let lost = try #require(throws: AppexError.self) {
            try host.completeDataRequest(first, response: Data("late".utf8))
        }
        #expect(lost.code == .conflict)
        try host.completeDataRequest(second, response: Data("on time".utf8))
        let answered = try #require(try requests.getDataRequest(asked.id, infoType: Question.self))
        #expect(answered.response == Data("on time".utf8))
        #expect(try requests.listDataRequests().first?.leases == 2)
        #expect(throws: AppexError.self) { try host.completeDataRequest(second, response: Data("twice".utf8)) }
    }

    @Test(
        "a waiter gives up at its timeout on a request no host took, and waits on (up to servedWithin) for one a host took and is answering"
    )
    func servedWithin() async throws {
        _ = try onboardedStore()
        let requests = try manager(widget)
        let untaken = try requests.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "a", n: 1), eSPAKAux: Data([1]), kind: "k")
        )
        let started = ContinuousClock.now
        let gaveUp = await #expect(throws: AppexError.self) {
            try await requests.completion(of: untaken, within: .milliseconds(300), servedWithin: .seconds(10))
        }
        #expect(gaveUp?.message.contains("the host is not serving requests now") == true)
        #expect(ContinuousClock.now - started < .seconds(3), "no host took it: the wait ends at its timeout")
        let host = try manager(self.host)
        let claim = try #require(try host.claimDataRequest())
        #expect(try requests.getDataRequest(untaken.id, infoType: Question.self)?.servedUntil != nil)
        // Without servedWithin, a taken request's wait ends at the timeout too.
        let short = await #expect(throws: AppexError.self) {
            try await requests.completion(of: untaken, within: .milliseconds(300))
        }
        #expect(short?.code == .deadlineExceeded)
        let waiting = Task {
            try await requests.completion(of: untaken, within: .milliseconds(300), servedWithin: .seconds(20))
        }
        try await Task.sleep(for: .seconds(1))
        try host.completeDataRequest(claim, response: Data("late but taken".utf8))
        let answered = try await waiting.value
        #expect(answered.response == Data("late but taken".utf8))
        #expect(answered.servedUntil == nil)
    }

    @Test(
        "requests nobody answers expire; waiting past the timeout says the host is not serving; another key opens nothing"
    )
    func expiryTimeoutAndKey() async throws {
        _ = try onboardedStore()
        let requests = try manager(widget, timeToLive: .milliseconds(200))
        let asked = try requests.putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "a", n: 1), eSPAKAux: Data([1]), kind: "k")
        )
        let timedOut = await #expect(throws: AppexError.self) {
            try await requests.completion(of: asked, within: .milliseconds(100))
        }
        #expect(timedOut?.code == .deadlineExceeded)
        try world.clock.advance(by: .milliseconds(300))  // past the request's lifetime
        #expect(try manager(host).claimDataRequest() == nil)
        #expect(try requests.getDataRequest(asked.id, infoType: Question.self) == nil)
        let kept = try manager(widget).putDataRequest(
            AuxiliaryDataRequest(info: Question(key: "b", n: 1), eSPAKAux: Data([1]), kind: "k")
        )
        let stranger = AuxiliaryDataRequestManager(
            dataStore: try AuxiliaryDataStore(
                group: AppGroup(Self.group, context: widget, environment: world.environment),
                encryptionKey: Data(repeating: 7, count: 32)
            )
        )
        let error = try #require(throws: AppexError.self) {
            try stranger.getDataRequest(kept.id, infoType: Question.self)
        }
        #expect(error.code == .corruptValue)
    }

    @Test(
        "the host killed with SIGKILL at random moments while serving 100 queued requests: each is answered exactly once, none lost"
    )
    func killedWhileServing() async throws {
        let fixture = SecureStoreProcessTests.fixture
        let variables = world.processVariables
        let onboarded = try await run(
            fixture,
            [world.team.teamIdentifier.rawValue, "onboard", "host passcode 1", "secret=s3cret"],
            environment: variables
        )
        #expect(onboarded.status == 0, "\(onboarded.standardError)")
        let requests = try manager(widget)
        var asked: [String: Int] = [:]
        let eSPAK = try share()
        for n in 0..<100 {
            let request = try requests.putDataRequest(
                AuxiliaryDataRequest(info: Question(key: "secret", n: n), eSPAKAux: eSPAK, kind: "echo")
            )
            asked[request.id] = n
        }
        #expect(asked.count == 100)
        var printed: [String] = []
        for _ in 0..<5 {
            // Killed after it has answered 1-5 requests, within 0-12 ms (a request takes ~12).
            printed += try await killedWhileWorking(
                fixture,
                [world.team.teamIdentifier.rawValue, "serve"],
                environment: variables,
                afterLines: Int.random(in: 1...5),
                extra: 0...0.012
            )
        }
        let last = try await run(
            fixture,
            [world.team.teamIdentifier.rawValue, "serve"],
            environment: variables,
            timeout: 120
        )
        #expect(last.status == 0, "the last server did not finish: \(last.standardError)")
        printed += last.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            Set(printed).count == printed.count,
            "an answer was given twice: \(printed.count) printed, \(Set(printed).count) distinct"
        )
        let statuses = try requests.listDataRequests()
        #expect(statuses.count == 100)
        #expect(statuses.allSatisfy { $0.completionTime != nil && $0.failure == nil })
        for (id, n) in asked {
            let answered = try #require(try requests.getDataRequest(id, infoType: Question.self))
            #expect(try answered.response(as: String.self) == "s3cret:\(n * 2)")
        }
        #expect(printed.count < 100 || statuses.contains { $0.leases > 1 }, "no server was killed while serving")
        #expect(
            statuses.contains { $0.leases > 1 },
            "no request was served again after a kill: the kills came too late"
        )
    }
}
