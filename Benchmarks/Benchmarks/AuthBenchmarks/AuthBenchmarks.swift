// The authorized-request figure of issue 5, beside the same request through a bare URLSession,
// measured in the same run against the real authorization server (django-oauth-toolkit on
// 127.0.0.1:$APPEX_OAUTH_PORT, which Scripts/bench.sh sets to the port the server published). Read from the custom
// metric "latency" (nanoseconds, one value per request).
//
// Set up once per benchmark process, as Tests/AppexTests/OAuthTests.swift's AuthWorld does: a
// temporary AppexTestEnvironment; the host (HostAccessorBuilder ... .option(.oauth)) logs in
// with the password grant as ada, client swift-public (1-hour access tokens), storing the token
// set in the shared keychain (access group TEAMID.com.example.shared); the token manager used
// is an app extension's (AccessorBuilder ... .option(.oauth), context .appExtension).
//
// - auth.request.fresh: OAuthTokenManager.data(for: URLRequest(url: <issuer>/api/me)) with a
//   fresh token: the token set read from the keychain (and decrypted), checked for expiry, the
//   Authorization header set, the GET sent through the library's URLSession. Each request is
//   timed.
// - auth.request.fresh.baseline: the same GET through a bare URLSession of the same
//   configuration (ephemeral, 30 s timeout, no cookies, no cache) with
//   `Authorization: Bearer <token>` set by hand (the token read once at setup).
//
// Fairness: both benchmarks send the two kinds of request alternately (ours, baseline, then
// baseline, ours, ...) and each records only its own kind, so both see the same server and the
// same warm connections; the other kind's requests are sent but not timed.
// Target (issue 5): ours ≤ baseline + max(5 %, 100 µs).
//
// - auth.token.fresh: the token manager's own cost, in process, no network (issue 28):
//   OAuthTokenManager.authorizedRequest(_:) with a fresh stored token (the token set read from
//   the shared keychain and decrypted, checked for expiry, the header set). Each call is timed.
//   Target: ≤ 100 µs. Baseline: the floor any manager has, the header set by hand on the same
//   request from a token held in memory.
import AppexAuth
import AppexAuthLogin
import AppexCore
import AppexStore
import AppexTesting
import Benchmark
import BenchSmoke
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A logged-in session and a bare URLSession side by side, made once per benchmark process.
final class AuthWorld: Sendable {
    static let group = "group.com.example.app"
    static let keychainGroup = "TEAMID.com.example.shared"
    static let port = ProcessInfo.processInfo.environment["APPEX_OAUTH_PORT"] ?? "8765"
    static let issuer = URL(string: "http://127.0.0.1:\(port)")!

    static let shared = Task { () -> AuthWorld in
        do { return try await AuthWorld() } catch {
            FileHandle.standardError.write(Data("cannot build the auth benchmark fixture (is the OAuth server on port \(port) running?): \(error)\n".utf8))
            exit(1)
        }
    }

    let world: AppexTestEnvironment
    /// The host, which logged in (kept so its state outlives setup).
    let host: HostAccessor
    /// An app extension's token manager over the host's session.
    let manager: OAuthTokenManager
    /// The bare session of the baseline.
    let bare: URLSession
    /// GET <issuer>/api/me, no header.
    let request: URLRequest
    /// The same request with `Authorization: Bearer <token>` set by hand.
    let authorized: URLRequest

    init() async throws {
        world = try AppexTestEnvironment(prefix: "appex-bench-auth")
        let configuration = OAuthConfiguration(issuer: Self.issuer, clientID: "swift-public", scopes: ["read", "write"], appGroup: Self.group,
                                               storage: .keychain, keychainAccessGroup: Self.keychainGroup,
                                               userInfoEndpoint: Self.issuer.appendingPathComponent("api/me"))
        let team = world.team.teamIdentifier
        host = try HostAccessorBuilder(configuration: configuration, context: Self.context(.hostApp, team: team), environment: world.environment).option(.oauth).build()
        try await host.login.password(user: "ada", password: "lovelace")
        manager = try AccessorBuilder(configuration: configuration, context: Self.context(.appExtension, team: team), environment: world.environment)
            .option(.oauth).build().tokenManager
        let session = URLSessionConfiguration.ephemeral
        session.timeoutIntervalForRequest = 30
        session.httpCookieStorage = nil
        session.urlCache = nil
        bare = URLSession(configuration: session)
        request = URLRequest(url: Self.issuer.appendingPathComponent("api/me"))
        guard let token = try manager.storedTokens()?.accessToken else { throw AppexError(.notLoggedIn, "no token after login") }
        var authorized = request
        authorized.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        self.authorized = authorized
        // Both work (200) before anything is timed.
        let (_, ours) = try await manager.data(for: request)
        let (_, theirs) = try await bare.data(for: authorized)
        guard ours.statusCode == 200, (theirs as? HTTPURLResponse)?.statusCode == 200 else {
            throw AppexError(.rejected, "GET /api/me answered \(ours.statusCode) (ours) and \((theirs as? HTTPURLResponse)?.statusCode ?? 0) (bare)")
        }

    }

    /// The host app's or its widget's context, of `team`, as the tests' AuthWorld makes them.
    static func context(_ kind: AppexBundle.Kind, team: TeamIdentifier) -> ProcessContext {
        ProcessContext(bundleIdentifier: kind == .hostApp ? "com.example.hostapp" : "com.example.hostapp.widget",
                       team: team,
                       entitlements: Entitlements(applicationGroups: [group], keychainAccessGroups: [keychainGroup]), kind: kind)
    }

    /// Our authorized request; fails unless 200.
    func ours() async throws {
        let (data, response) = try await manager.data(for: request)
        guard response.statusCode == 200 else { throw AppexError(.rejected, "ours: HTTP \(response.statusCode)") }
        blackHole(data)
    }

    /// The bare request; fails unless 200.
    func baseline() async throws {
        let (data, response) = try await bare.data(for: authorized)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw AppexError(.rejected, "baseline: no 200") }
        blackHole(data)
    }
}

let benchmarks: @Sendable () -> Void = {
    let latency = BenchmarkMetric.custom("latency", polarity: .prefersSmaller, useScalingFactor: false)
    let requests = Benchmark.Configuration(metrics: [.wallClock, latency], timeUnits: .microseconds, warmupIterations: 1,
                                           maxDuration: .seconds(20), maxIterations: 20)
    /// Pairs of requests a sample sends; one of each pair is timed.
    let pairsPerSample = 50

    /// Sends `pairsPerSample` pairs of requests, ours and the baseline in alternating order,
    /// recording the time of each `timed` one in "latency".
    @Sendable func alternate(_ benchmark: Benchmark, timingOurs: Bool) async throws {
        let world = await AuthWorld.shared.value
        for pair in 0..<pairsPerSample {
            for oursNow in pair % 2 == 0 ? [true, false] : [false, true] {
                let start = ContinuousClock.now
                if oursNow { try await world.ours() } else { try await world.baseline() }
                let elapsed = ContinuousClock.now - start
                if oursNow == timingOurs { benchmark.measurement(latency, nanoseconds(elapsed)) }
            }
        }
    }

    Benchmark("auth.request.fresh", configuration: requests) { benchmark in
        try await alternate(benchmark, timingOurs: true)
    }

    Benchmark("auth.request.fresh.baseline", configuration: requests) { benchmark in
        try await alternate(benchmark, timingOurs: false)
    }

    let inProcess = Benchmark.Configuration(metrics: [.wallClock, latency], timeUnits: .microseconds, warmupIterations: 2,
                                            maxDuration: .seconds(10), maxIterations: 20)
    let callsPerSample = 1_000

    Benchmark("auth.token.fresh", configuration: inProcess) { benchmark in
        let world = await AuthWorld.shared.value
        for _ in 0..<callsPerSample {
            let start = ContinuousClock.now
            let authorized = try await world.manager.authorizedRequest(world.request)
            benchmark.measurement(latency, nanoseconds(ContinuousClock.now - start))
            blackHole(authorized)
        }
    }

    Benchmark("auth.token.fresh.baseline", configuration: inProcess) { benchmark in
        let world = await AuthWorld.shared.value
        let token = world.authorized.value(forHTTPHeaderField: "Authorization") ?? ""
        for _ in 0..<callsPerSample {
            let start = ContinuousClock.now
            var authorized = world.request
            authorized.setValue(token, forHTTPHeaderField: "Authorization")
            benchmark.measurement(latency, nanoseconds(ContinuousClock.now - start))
            blackHole(authorized)
        }
    }

    applySmokeModeIfAsked()  // last: every benchmark above runs once under Scripts/bench.sh --smoke
}

/// A duration in whole nanoseconds, for the "latency" metric.
func nanoseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000)
}
