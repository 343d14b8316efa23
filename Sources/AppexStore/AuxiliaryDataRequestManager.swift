import AppexSQLite
import AppexVocabulary
public import Foundation
import GRDB
import Synchronization
import Tracing

/// Puts, finds, takes and answers auxiliary data requests (SAP's `AuxiliaryDataRequestManager`),
/// in an app group's durable queue.
///
/// An extension puts a request (``putDataRequest(_:)``) and waits for its answer
/// (``completion(of:within:servedWithin:)``); the host, running or in a background run, takes pending
/// requests one by one under a lease (``claimDataRequest(kinds:lease:)``), opens its secure
/// store with the request's auxiliary share, and answers (``completeDataRequest(_:response:)``).
/// Beyond SAP's single request slot:
/// - the queue is shared by every process of the group and survives the crash of any of them;
///   an answer's commit is synced, so an answer survives a power cut too, with every put and
///   claim before it (a put or claim after the last answer may be lost to a power cut: its
///   widget asks again at its next timeline — decision 0092);
/// - a request identical to a pending one (same kind and info) is not queued twice: the pending
///   one is returned, its share and expiry renewed;
/// - a host killed while serving leaves its lease to run out, and the request is taken again;
///   only the lease's holder may answer, so each request is answered once;
/// - answers are sealed under the auxiliary data encryption key, and a waiting extension learns
///   of them from the queue itself (woken by each commit): none is missed;
/// - requests nobody answers expire (``timeToLive``) and are dropped.
public struct AuxiliaryDataRequestManager: Sendable {
    /// The queue.
    public let dataStore: AuxiliaryDataStore
    /// How long a request waits for an answer before it is dropped.
    public var timeToLive: Duration
    /// How long an answered request is kept for its extension to read.
    public var answerRetention: Duration

    /// The requests of `dataStore`, which expire after `timeToLive` unanswered.
    public init(
        dataStore: AuxiliaryDataStore,
        timeToLive: Duration = .seconds(600),
        answerRetention: Duration = .seconds(3600)
    ) {
        self.dataStore = dataStore
        self.timeToLive = timeToLive
        self.answerRetention = answerRetention
    }

    // MARK: - The extension's side

    /// Puts `request` in the queue, or — when an identical request (same kind, same info) is
    /// pending — renews that one with this request's share and returns it.
    ///
    /// - Returns: the request as queued (its `id` is the pending one's when coalesced).
    /// - Throws: ``/AppexVocabulary/AppexError`` `coding` when the info cannot be encoded; `storage`.
    public func putDataRequest<T>(_ request: AuxiliaryDataRequest<T>) throws(AppexError) -> AuxiliaryDataRequest<T> {
        let span = startSpan("appex.aux.put")
        defer { span.end() }
        span.attributes["appex.aux.kind"] = request.kind
        let info = try Self.encode(request.info, what: "the info of a \(request.kind) request")
        let digest = try dataStore.digest(kind: request.kind, info: info)
        let now = dataStore.group.environment.clock.now.timeIntervalSince1970
        let expires = now + Self.seconds(timeToLive)
        let store = dataStore
        let retention = answerRetention
        let sealing = startSpan("appex.aux.seal", context: span.context)
        let sealed: Data
        do { sealed = try store.seal(info, id: request.id, "info:\(request.kind)") } catch {
            sealing.end()
            throw error
        }
        sealing.end()
        let (id, created) = try store.write("put a data request", synced: false) { db -> (String, Double) in
            try Self.dropExpired(db, now: now, retention: retention)
            if let row = try Row.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT id, created FROM request WHERE digest = ? AND completed IS NULL ORDER BY created LIMIT 1"
                ),
                arguments: [digest]
            ) {
                let id = try row.field("id", as: String.self, in: store.path)
                try db.cachedStatement(sql: "UPDATE request SET espak = ?, modified = ?, expires = ? WHERE id = ?")
                    .execute(arguments: [request.eSPAKAux, now, expires, id])
                return (id, try row.field("created", as: Double.self, in: store.path))
            }
            try db.cachedStatement(
                sql: """
                    INSERT INTO request (id, kind, digest, info, espak, created, modified, expires)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [request.id, request.kind, digest, sealed, request.eSPAKAux, now, now, expires])
            return (request.id, now)
        }
        var queued = AuxiliaryDataRequest(
            id: id,
            info: request.info,
            eSPAKAux: request.eSPAKAux,
            kind: request.kind,
            created: Date(timeIntervalSince1970: created)
        )
        queued.lastModifiedTime = Date(timeIntervalSince1970: now)
        return queued
    }

    /// The request `id` as the queue has it now (pending or answered), its info decoded as `T`;
    /// `nil` when there is none (never put, expired, or dropped after its retention).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `corruptValue` when it does not open with this store's key;
    ///   `coding` when its info is not a `T`.
    public func getDataRequest<T>(
        _ id: String,
        infoType: T.Type = T.self
    ) throws(AppexError) -> AuxiliaryDataRequest<T>? {
        let row = try dataStore.read("read a data request") { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM request WHERE id = ?"), arguments: [id])
        }
        guard let row else { return nil }
        let path = dataStore.path
        let kind = try row.field("kind", as: String.self, in: path)
        let info = try dataStore.open(try row.field("info", in: path), id: id, "info:\(kind)")
        let decoded: T
        do { decoded = try JSONDecoder().decode(T.self, from: info) } catch {
            throw AppexError(.coding, "the info of data request \(id) is not a \(T.self)", underlyingError: error)
        }
        var request = AuxiliaryDataRequest(
            id: id,
            info: decoded,
            eSPAKAux: try row.field("espak", in: path),
            kind: kind,
            created: Date(timeIntervalSince1970: try row.field("created", in: path))
        )
        request.lastModifiedTime = Date(timeIntervalSince1970: try row.field("modified", in: path))
        if let completed = try row.field("completed", as: Double?.self, in: path) {
            request.completionTime = Date(timeIntervalSince1970: completed)
            if let sealed = try row.field("response", as: Data?.self, in: path) {
                request.response = try dataStore.open(sealed, id: id, "response:\(kind)")
            }
            request.failure = try row.field("failure", as: String?.self, in: path)
        } else if let until = try row.field("lease_until", as: Double?.self, in: path) {
            request.servedUntil = Date(timeIntervalSince1970: until)
        }
        return request
    }

    /// The newest answer (not a failure) to a request like `request` — same kind, same info —
    /// still kept (``answerRetention``); `nil` when there is none. What a widget shows while its
    /// new request waits for a host that is not running.
    public func latestAnswer<T>(to request: AuxiliaryDataRequest<T>) throws(AppexError) -> AuxiliaryDataRequest<T>? {
        let info = try Self.encode(request.info, what: "the info of a \(request.kind) request")
        let digest = try dataStore.digest(kind: request.kind, info: info)
        let id = try dataStore.read("find the latest answer") { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT id FROM request WHERE digest = ? AND completed IS NOT NULL AND failure IS NULL
                    ORDER BY completed DESC LIMIT 1
                    """,
                arguments: [digest]
            )
        }
        guard let id else { return nil }
        return try getDataRequest(id, infoType: T.self)
    }

    /// Waits until the host answers `request`, and returns it answered. Lossless: the queue is
    /// read at once and again after every answer committed to it (and every 100 ms), so an
    /// answer that came before the wait began, or between two looks, is found. The wait ends
    /// within 100 ms of `timeout`, and at once when the calling task is cancelled.
    ///
    /// A host that has taken the request (a running app, a background run) is working on it:
    /// with `servedWithin` longer than `timeout`, the wait goes on while that host's lease holds,
    /// up to `servedWithin` in all. A widget then says "waiting for the app" quickly when the app
    /// is not running, and does not say it of an app that is answering on a busy machine.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `deadlineExceeded` when no answer came within `timeout` (the
    ///   host is not running: its next background run answers), or within `servedWithin` of a
    ///   host that took it; `notFound` when the request expired or was purged; `cancelled`.
    public func completion<T>(
        of request: AuxiliaryDataRequest<T>,
        within timeout: Duration,
        servedWithin: Duration? = nil
    ) async throws(AppexError) -> AuxiliaryDataRequest<T> {
        let span = startSpan("appex.aux.wait")
        defer { span.end() }
        span.attributes["appex.aux.kind"] = request.kind
        let started = ContinuousClock.now
        let deadline = started + timeout
        let servedDeadline = started + max(timeout, servedWithin ?? timeout)
        let wakeups = dataStore.commitWakeups()
        defer { wakeups.stop() }
        while true {
            // A wakeup that came before this look is for a commit this look sees.
            wakeups.clear()
            guard let current = try getDataRequest(request.id, infoType: T.self) else {
                throw AppexError(
                    .notFound,
                    "data request \(request.id) (\(request.kind)) is no longer queued: it expired unanswered or was purged",
                    context: AppexError.Context(path: dataStore.path, group: dataStore.group.identifier)
                )
            }
            if current.isCompleted { return current }
            if Task.isCancelled {
                throw AppexError(.cancelled, "the wait for data request \(request.id) was cancelled")
            }
            let now = ContinuousClock.now
            let served = current.servedUntil.map { $0 > dataStore.group.environment.clock.now } ?? false
            guard now < deadline || (served && now < servedDeadline) else {
                throw AppexError(
                    .deadlineExceeded,
                    served
                        ? "no answer to data request \(request.id) (\(request.kind)) within \(servedWithin ?? timeout): a host took it and is still at it"
                        : "no answer to data request \(request.id) (\(request.kind)) within \(timeout): the host is not serving requests now",
                    context: AppexError.Context(path: dataStore.path, group: dataStore.group.identifier)
                )
            }
            await wakeups.next()
        }
    }

    // MARK: - The host's side

    /// Takes the oldest pending request (of `kinds`, if given) that no live lease holds, under a
    /// lease of `lease`: no other process takes it until the lease runs out. Expired requests
    /// are dropped first.
    ///
    /// - Returns: the claim, or `nil` when nothing is pending.
    public func claimDataRequest(
        kinds: Set<String>? = nil,
        lease: Duration = .seconds(30)
    ) throws(AppexError) -> AuxiliaryDataRequestClaim? {
        let store = dataStore
        let retention = answerRetention
        while true {
            let span = startSpan("appex.aux.claim")
            defer { span.end() }
            let now = dataStore.group.environment.clock.now.timeIntervalSince1970
            let token = UUID().uuidString
            let row = try store.write("take a data request", synced: false, signals: false) { db -> Row? in
                try Self.dropExpired(db, now: now, retention: retention)
                var sql =
                    "SELECT id, kind, espak, info, created FROM request WHERE completed IS NULL AND (lease IS NULL OR lease_until < ?)"
                var arguments: StatementArguments = [now]
                if let kinds {
                    if kinds.isEmpty { return nil }
                    sql += " AND kind IN (\(kinds.map { _ in "?" }.joined(separator: ",")))"
                    arguments += StatementArguments(Array(kinds))
                }
                sql += " ORDER BY created, id LIMIT 1"
                guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) else { return nil }
                try db.cachedStatement(
                    sql: "UPDATE request SET lease = ?, lease_until = ?, leases = leases + 1 WHERE id = ?"
                )
                .execute(arguments: [
                    token, now + Self.seconds(lease), try row.field("id", as: String.self, in: store.path),
                ])
                return row
            }
            guard let row else { return nil }
            let id = try row.field("id", as: String.self, in: store.path)
            let kind = try row.field("kind", as: String.self, in: store.path)
            do {
                return AuxiliaryDataRequestClaim(
                    id: id,
                    kind: kind,
                    eSPAKAux: try row.field("espak", in: store.path),
                    info: try store.open(try row.field("info", in: store.path), id: id, "info:\(kind)"),
                    creationTime: Date(timeIntervalSince1970: try row.field("created", in: store.path)),
                    lease: token
                )
            } catch {
                // A request this host cannot read (sealed under another key, or edited) must not
                // stop the serving of the others: it is failed, saying why, and the next taken.
                let unreadable = AuxiliaryDataRequestClaim(
                    id: id,
                    kind: kind,
                    eSPAKAux: Data(),
                    info: Data(),
                    creationTime: store.group.environment.clock.now,
                    lease: token
                )
                try? failDataRequest(unreadable, reason: error.description)
            }
        }
    }

    /// Answers the claimed request with `response` (sealed under the auxiliary data encryption
    /// key) and wakes its waiting extension.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `conflict` when the lease was lost (it ran out and another
    ///   process took the request, or the request expired): the answer is dropped, so each
    ///   request is answered once.
    public func completeDataRequest(_ claim: AuxiliaryDataRequestClaim, response: Data) throws(AppexError) {
        let span = startSpan("appex.aux.answer")
        defer { span.end() }
        span.attributes["appex.aux.kind"] = claim.kind
        let sealed = try dataStore.seal(response, id: claim.id, "response:\(claim.kind)")
        try finish(claim, response: sealed, failure: nil)
    }

    /// Answers the claimed request with `response` encoded as JSON.
    public func completeDataRequest<Response: Encodable>(
        _ claim: AuxiliaryDataRequestClaim,
        with response: Response
    ) throws(AppexError) {
        try completeDataRequest(
            claim,
            response: Self.encode(response, what: "the response to data request \(claim.id)")
        )
    }

    /// Ends the claimed request without an answer, saying why (its extension sees `failure`).
    public func failDataRequest(_ claim: AuxiliaryDataRequestClaim, reason: String) throws(AppexError) {
        try finish(claim, response: nil, failure: reason)
    }

    private func finish(_ claim: AuxiliaryDataRequestClaim, response: Data?, failure: String?) throws(AppexError) {
        let now = dataStore.group.environment.clock.now.timeIntervalSince1970
        let changed = try dataStore.write("answer a data request") { db -> Int in
            try db.cachedStatement(
                sql: """
                    UPDATE request SET completed = ?, modified = ?, response = ?, failure = ?, lease = NULL, lease_until = NULL
                    WHERE id = ? AND lease = ? AND completed IS NULL
                    """
            ).execute(arguments: [now, now, response, failure, claim.id, claim.lease])
            return db.changesCount
        }
        guard changed == 1 else {
            throw AppexError(
                .conflict,
                "the lease on data request \(claim.id) (\(claim.kind)) was lost — it ran out and another process took the request, or the request expired — so this answer is dropped",
                context: AppexError.Context(path: dataStore.path, group: dataStore.group.identifier)
            )
        }
    }

    /// Answers every pending request (of `kinds`, if given) now, one at a time, and returns how
    /// many were answered or failed: what a background run does. `handler` makes each answer;
    /// an ``/AppexVocabulary/AppexError`` it throws fails the request with its description (the extension sees
    /// it as ``AuxiliaryDataRequest/failure``). A request whose lease was lost is left to its
    /// new holder.
    @discardableResult
    public func serveDataRequests(
        kinds: Set<String>? = nil,
        lease: Duration = .seconds(30),
        isolation: isolated (any Actor)? = #isolation,
        _ handler: (AuxiliaryDataRequestClaim) async throws(AppexError) -> Data
    ) async throws(AppexError) -> Int {
        try await serve(kinds: kinds, lease: lease, wakeups: nil, handler)
    }

    /// ``serveDataRequests(kinds:lease:isolation:_:)``, dropping `wakeups`' pending wakeup before
    /// each claim: a commit it came for is seen by that claim (or the next), so this host's own
    /// answers do not wake it for one more pass.
    private func serve(
        kinds: Set<String>?,
        lease: Duration,
        wakeups: CommitWakeups?,
        isolation: isolated (any Actor)? = #isolation,
        _ handler: (AuxiliaryDataRequestClaim) async throws(AppexError) -> Data
    ) async throws(AppexError) -> Int {
        var served = 0
        while true {
            wakeups?.clear()
            guard let claim = try claimDataRequest(kinds: kinds, lease: lease) else { break }
            do {
                let response = try await handler(claim)
                try completeDataRequest(claim, response: response)
                served += 1
            } catch  where error.code == .conflict {
                continue
            } catch {
                do {
                    try failDataRequest(claim, reason: error.description)
                    served += 1
                } catch  where error.code == .conflict {
                    continue
                }
            }
        }
        return served
    }

    /// Answers requests as they arrive, until the calling task is cancelled: what a running host
    /// does. Woken by every commit to the queue (and every 100 ms), it serves as
    /// ``serveDataRequests(kinds:lease:isolation:_:)`` does.
    public func serveDataRequestsUntilCancelled(
        kinds: Set<String>? = nil,
        lease: Duration = .seconds(30),
        isolation: isolated (any Actor)? = #isolation,
        _ handler: (AuxiliaryDataRequestClaim) async throws(AppexError) -> Data
    ) async throws(AppexError) {
        let wakeups = dataStore.commitWakeups()
        defer { wakeups.stop() }
        while !Task.isCancelled {
            _ = try await serve(kinds: kinds, lease: lease, wakeups: wakeups, handler)
            await wakeups.next()
        }
    }

    // MARK: - Looking after the queue

    /// Every request, oldest first, without what it asks or what was answered.
    public func listDataRequests() throws(AppexError) -> [AuxiliaryDataRequestStatus] {
        try dataStore.read("list the data requests") { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT id, kind, created, modified, expires, lease_until, leases, completed, failure FROM request ORDER BY created, id"
            )
        }.map { (row: Row) throws(AppexError) -> AuxiliaryDataRequestStatus in
            let path = dataStore.path
            return AuxiliaryDataRequestStatus(
                id: try row.field("id", in: path),
                kind: try row.field("kind", in: path),
                creationTime: Date(timeIntervalSince1970: try row.field("created", in: path)),
                lastModifiedTime: Date(timeIntervalSince1970: try row.field("modified", in: path)),
                expiry: Date(timeIntervalSince1970: try row.field("expires", in: path)),
                leaseExpiry: try row.field("lease_until", as: Double?.self, in: path).map {
                    Date(timeIntervalSince1970: $0)
                },
                leases: try row.field("leases", in: path),
                completionTime: try row.field("completed", as: Double?.self, in: path).map {
                    Date(timeIntervalSince1970: $0)
                },
                failure: try row.field("failure", in: path)
            )
        }
    }

    /// Deletes every request (`answeredOnly`: only the answered ones); returns how many.
    @discardableResult
    public func purgeDataRequests(answeredOnly: Bool = false) throws(AppexError) -> Int {
        try dataStore.write("purge the data requests") { db -> Int in
            try db.execute(
                sql: answeredOnly ? "DELETE FROM request WHERE completed IS NOT NULL" : "DELETE FROM request"
            )
            return db.changesCount
        }
    }

    // MARK: -

    /// Drops the requests that expired unanswered and the answers kept past `retention`: two
    /// statements, each a range of the `(completed, created)` index, so that the cost follows
    /// what is pending, not what the queue ever held.
    private static func dropExpired(_ db: Database, now: Double, retention: Duration) throws {
        try db.cachedStatement(sql: "DELETE FROM request WHERE completed IS NULL AND expires < ?")
            .execute(arguments: [now])
        try db.cachedStatement(sql: "DELETE FROM request WHERE completed < ?")
            .execute(arguments: [now - seconds(retention)])
    }

    private static func encode<Value: Encodable>(_ value: Value, what: String) throws(AppexError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do { return try encoder.encode(value) } catch {
            throw AppexError(.coding, "cannot encode \(what)", underlyingError: error)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
