/// Brings a ``ContactsStore`` up to date with a ``ContactsAPI``: incrementally (what changed
/// since the last sync), page by page, each page stored with the sync's place, so an interrupted
/// sync — cancelled, or its process killed — resumes where it stopped, losing and repeating
/// nothing.
public struct ContactsSync: Sendable {
    /// What one sync did.
    public struct Report: Sendable, Equatable {
        /// Contacts received (a contact changed twice during the sync may come twice).
        public var received: Int
        /// Pages asked for.
        public var pages: Int
        /// Whether it went on from an interrupted sync.
        public var resumed: Bool

        /// A report.
        public init(received: Int, pages: Int, resumed: Bool) {
            self.received = received
            self.pages = pages
            self.resumed = resumed
        }
    }

    /// Where a sync is, after each page: contacts received so far, and whether more pages follow.
    public typealias Progress = @Sendable (_ received: Int, _ more: Bool) -> Void

    public let api: ContactsAPI
    public let store: ContactsStore
    /// Contacts a page.
    public var pageSize = 200

    /// A sync of `store` from `api`.
    public init(api: ContactsAPI, store: ContactsStore) {
        self.api = api
        self.store = store
    }

    /// Syncs until the last page is stored. Cancellation stops it between pages (the pages
    /// stored are kept; the next sync goes on from there).
    ///
    /// The next page is asked for as soon as this one's cursor is read, before this one is
    /// decoded and stored, so that neither adds to the time the pages take to arrive; each page
    /// is still stored, with the sync's place, in one transaction, in order.
    public func run(progress: Progress = { _, _ in }) async throws -> Report {
        let state = try store.syncState()
        let since = state.resume.map(\.since) ?? state.since
        var report = Report(received: 0, pages: 0, resumed: state.resume != nil)
        let api = api
        let pageSize = pageSize
        func fetch(_ cursor: String?) -> Task<ContactsAPI.PageBody, any Error> {
            Task { try await api.pageBody(modifiedSince: since, cursor: cursor, limit: pageSize) }
        }
        var pending = fetch(state.resume?.cursor)
        defer { pending.cancel() }
        while true {
            try Task.checkCancellation()
            // The request runs in a task of its own: a cancelled sync cancels it too.
            let current = pending
            let body = try await withTaskCancellationHandler {
                try await current.value
            } onCancel: {
                current.cancel()
            }
            try Task.checkCancellation()
            let peeked = body.nextCursor
            if case .some(.some(let next)) = peeked { pending = fetch(next) }
            let page = try body.page()
            if peeked.flatMap({ $0 }) != page.nextCursor || peeked == nil {
                // The cursor was not where it is read quickly: go on from the decoded one.
                pending.cancel()
                if let next = page.nextCursor { pending = fetch(next) }
            }
            try store.store(page: page.contacts, askedSince: since, next: page.nextCursor)
            report.received += page.contacts.count
            report.pages += 1
            progress(report.received, page.nextCursor != nil)
            if page.nextCursor == nil { return report }
        }
    }
}
