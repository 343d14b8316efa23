import AppexAuth
import AppexSecureStore
import AppexStore
import ContactsKit
import Foundation

/// ContactsExplorer's side of its widget's data requests (seed 002): while the session is behind
/// the app passcode, the widget asks, and the app answers — running (``serveUntilCancelled()``)
/// or in a background run (``backgroundRun()``) — with its secure store opened by the request's
/// share, the session's tokens from it, and one GET of the contacts.
extension App {
    /// How long a request the app took is its own: a GET of a few contacts takes well under a
    /// second; an app killed while serving leaves the request to the next after this.
    static let lease = Duration.seconds(10)

    /// The group's data requests, as the app serves them.
    func dataRequests() throws(AppexError) -> AuxiliaryDataRequestManager {
        try appStore().dataRequests(inGroup: AppConfiguration.appGroup)
    }

    /// The app's secure store, its failure an ``AppexError``.
    private func appStore() throws(AppexError) -> SecureStore {
        do { return try secureStore() } catch let error as AppexError { throw error } catch {
            throw AppexError(.configuration, "cannot open ContactsExplorer's secure store: \(error)")
        }
    }

    /// The answer to one recent-contacts request: the contacts, JSON.
    func answerRecentContacts(
        _ claim: AuxiliaryDataRequestClaim,
        _ access: SecureStore.Access
    ) async throws(AppexError)
        -> Data
    {
        let question = try claim.info(as: RecentContactsQuestion.self)
        let group = try AppGroup(AppConfiguration.appGroup, context: context, environment: environment)
        let manager = try OAuthTokenManager(
            configuration: configuration,
            storage: SecureStoreTokenStorage(access: access),
            group: group
        )
        let api = ContactsAPI(server: server, isTransient: { ($0 as? AppexError)?.code == .retryable }) { request in
            try await manager.data(for: request)
        }
        do {
            let contacts = try await api.contacts(ids: question.ids, idempotencyKey: claim.id)
            return try JSONEncoder().encode(contacts)
        } catch let error as AppexError {
            throw error
        } catch {
            throw AppexError(.remoteFailure, "the recent contacts could not be fetched: \(error)")
        }
    }

    /// Answers one pending request.
    func answer(_ claim: AuxiliaryDataRequestClaim) async throws(AppexError) -> Data {
        return try await appStore().withAccess(eSPAKAuxiliary: claim.eSPAKAux) { access throws(AppexError) in
            try await answerRecentContacts(claim, access)
        }
    }

    /// Answers the widget's requests as they arrive, until cancelled (`ContactsExplorer run`).
    /// Until a passcode is set there is no secure store and no request: it waits for one.
    func serveUntilCancelled() async throws(AppexError) {
        while !Task.isCancelled {
            do {
                try await dataRequests().serveDataRequestsUntilCancelled(
                    kinds: [RecentContactsQuestion.kind],
                    lease: Self.lease
                ) {
                    claim throws(AppexError) in try await answer(claim)
                }
                return
            } catch  where error.code == .notOnboarded {
                try? await Task.sleep(for: .seconds(2))
            }
        }
    }

    /// Asks for a background run soon (`appex background run --host ContactsExplorer.app`
    /// launches the app when it is due), so that requests put while the app is not running are
    /// answered.
    func scheduleBackgroundRun(after delay: TimeInterval = 0) throws(AppexError) {
        let scheduler = try BackgroundTaskScheduler(context: context, environment: environment)
        scheduler.register(forTaskWithIdentifier: RecentContactsQuestion.refreshTask) { _ in }
        try scheduler.submit(
            AppRefreshTaskRequest(
                identifier: RecentContactsQuestion.refreshTask,
                earliestBeginDate: environment.clock.now + delay
            )
        )
    }

    /// The app launched for a background run: answers every pending request and asks for the
    /// next run in five minutes.
    func backgroundRun() async throws(AppexError) {
        let scheduler = try BackgroundTaskScheduler(context: context, environment: environment)
        let app = self
        scheduler.register(forTaskWithIdentifier: RecentContactsQuestion.refreshTask) { task in
            do throws(AppexError) {
                let answered = try await app.dataRequests().serveDataRequests(
                    kinds: [RecentContactsQuestion.kind],
                    lease: Self.lease
                ) {
                    claim throws(AppexError) in try await app.answer(claim)
                }
                print("answered \(answered) data request\(answered == 1 ? "" : "s")")
                // The widget shows the answer at its next timeline.
                if answered > 0 { app.reloadWidget() }
                // Requests still pending are held by a run that was killed: the next run comes
                // once their leases have run out; otherwise in five minutes.
                let waiting = try app.dataRequests().listDataRequests().contains { $0.completionTime == nil }
                let next = waiting ? Double(Self.lease.components.seconds) + 1 : 300
                try scheduler.submit(
                    AppRefreshTaskRequest(
                        identifier: task.identifier,
                        earliestBeginDate: app.environment.clock.now + next
                    )
                )
                task.setTaskCompleted(success: true)
            } catch {
                FileHandle.standardError.write(Data("ContactsExplorer: background run: \(error)\n".utf8))
                task.setTaskCompleted(success: false)
            }
        }
        _ = try await scheduler.runDueTasks()
    }
}
