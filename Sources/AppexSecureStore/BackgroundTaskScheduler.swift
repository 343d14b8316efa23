public import AppexCore
import AppexSQLite
import AppexStore
public import Foundation
import GRDB
import Synchronization

/// Schedules a host's work for background runs (the shape of BackgroundTasks'
/// `BGTaskScheduler`): the host registers a handler per task identifier at launch, submits
/// requests (persisted in its container, so they survive the process), and a background run —
/// `appex background run --host HOST.app`, from a systemd timer or cron — launches the host with
/// `APPEX_BACKGROUND_RUN=1` when a request is due; the host then calls ``runDueTasks(now:)``.
///
/// ```swift
/// let scheduler = try BackgroundTaskScheduler(context: try ProcessContext(bundleAt: appPath))
/// scheduler.register(forTaskWithIdentifier: "com.myapp.refresh") { task in
///     await answerPendingRequests()
///     try? scheduler.submit(AppRefreshTaskRequest(identifier: task.identifier, earliestBeginDate: .now + 900))
///     task.setTaskCompleted(success: true)
/// }
/// if BackgroundTaskScheduler.isBackgroundLaunch { _ = try await scheduler.runDueTasks(); exit(0) }
/// ```
public final class BackgroundTaskScheduler: Sendable {
    /// The host app.
    public let context: ProcessContext
    /// The requests' file.
    public let path: String
    /// When tasks are due: the environment's clock.
    let clock: AppexClock
    private let database: DatabaseQueue
    private let handlers = Mutex<[String: @Sendable (AppRefreshTask) async -> Void]>([:])

    /// The environment variable a background run sets when it launches the host.
    public static let backgroundRunVariable = "APPEX_BACKGROUND_RUN"

    /// Whether this process was launched by a background run.
    public static var isBackgroundLaunch: Bool {
        ProcessInfo.processInfo.environment[backgroundRunVariable] == "1"
    }

    /// The scheduler of the host `context`.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `hostOnly` for an extension or the owner; `storage`.
    public init(context: ProcessContext, environment: AppexEnvironment = .current()) throws(AppexError) {
        guard !context.isOwner, context.kind == .hostApp, let host = context.bundleIdentifier else {
            throw AppexError(
                .hostOnly,
                "only a host app schedules background work; \(context.name) cannot",
                context: context.errorContext()
            )
        }
        self.context = context
        self.clock = environment.clock
        (path, database) = try Self.open(host: host, environment: environment)
    }

    private static func open(host: String, environment: AppexEnvironment) throws(AppexError) -> (String, DatabaseQueue)
    {
        let directory = environment.home + "/Containers/\(host)/Library"
        let path = directory + "/BackgroundTasks.sqlite"
        let database = try SharedDatabase.openPrivate(
            path: path,
            naming: "the background task requests",
            label: "appex.background-tasks",
            version: 1
        ) { _ in
            "CREATE TABLE IF NOT EXISTS request (identifier TEXT PRIMARY KEY NOT NULL, earliest REAL);"
        }
        return (path, database)
    }

    /// Registers the handler of the task `identifier`; `false` when one is registered already.
    @discardableResult
    public func register(
        forTaskWithIdentifier identifier: String,
        launchHandler: @escaping @Sendable (AppRefreshTask) async -> Void
    ) -> Bool {
        handlers.withLock { handlers in
            guard handlers[identifier] == nil else { return false }
            handlers[identifier] = launchHandler
            return true
        }
    }

    /// Persists `request`, replacing an earlier one of the same task.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `notFound` when no handler is registered for its identifier.
    public func submit(_ request: AppRefreshTaskRequest) throws(AppexError) {
        guard handlers.withLock({ $0[request.identifier] != nil }) else {
            throw AppexError(
                .notFound,
                "no handler is registered for background task \(request.identifier): register it at launch, before submitting",
                context: context.errorContext()
            )
        }
        try write("submit a background task request") { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO request (identifier, earliest) VALUES (?, ?)",
                arguments: [request.identifier, request.earliestBeginDate?.timeIntervalSince1970]
            )
        }
    }

    /// The persisted requests, by identifier.
    public func pendingTaskRequests() throws(AppexError) -> [AppRefreshTaskRequest] {
        try Self.requests(in: database, path: path)
    }

    /// Cancels the request of the task `identifier`, if any.
    public func cancel(taskRequestWithIdentifier identifier: String) throws(AppexError) {
        try write("cancel a background task request") { db in
            try db.execute(sql: "DELETE FROM request WHERE identifier = ?", arguments: [identifier])
        }
    }

    /// Runs the handler of each due request, one after another. A request is removed once its
    /// handler returns — unless the handler submitted it again meanwhile (a task that wants to
    /// run again submits itself, as with `BGTaskScheduler`) — so a run killed mid-task (a
    /// background run past its time limit) leaves the request due for the next run. Due requests
    /// without a registered handler are left for a later run.
    ///
    /// - Parameter now: the moment; default: the environment's clock.
    /// - Returns: the identifiers of the tasks run.
    public func runDueTasks(now: Date? = nil) async throws(AppexError) -> [String] {
        let now = now ?? clock.now
        let due = try pendingTaskRequests().filter { ($0.earliestBeginDate ?? .distantPast) <= now }
        var ran: [String] = []
        for request in due {
            guard let handler = handlers.withLock({ $0[request.identifier] }) else { continue }
            let task = AppRefreshTask(identifier: request.identifier)
            await handler(task)
            try write("remove a background task request that ran") { db in
                try db.execute(
                    sql: "DELETE FROM request WHERE identifier = ? AND earliest IS ?",
                    arguments: [request.identifier, request.earliestBeginDate?.timeIntervalSince1970]
                )
            }
            ran.append(request.identifier)
        }
        return ran
    }

    /// The identifiers of `host`'s requests due at `now`, read without being the host (what
    /// `appex background run` checks before launching it).
    public static func dueTaskIdentifiers(
        hostBundleIdentifier host: String,
        now: Date? = nil,
        environment: AppexEnvironment = .current()
    ) throws(AppexError) -> [String] {
        let now = now ?? environment.clock.now
        let (path, database) = try open(host: host, environment: environment)
        return try requests(in: database, path: path).filter { ($0.earliestBeginDate ?? .distantPast) <= now }.map(
            \.identifier
        )
    }

    private static func requests(in database: DatabaseQueue, path: String) throws(AppexError) -> [AppRefreshTaskRequest]
    {
        let rows = try SharedDatabase.read(
            database,
            "read the background task requests",
            path: path,
            context: AppexError.Context(path: path)
        ) { db in try Row.fetchAll(db, sql: "SELECT identifier, earliest FROM request ORDER BY identifier") }
        return try rows.map { (row: Row) throws(AppexError) -> AppRefreshTaskRequest in
            AppRefreshTaskRequest(
                identifier: try row.field("identifier", in: path),
                earliestBeginDate: try row.field("earliest", as: Double?.self, in: path).map {
                    Date(timeIntervalSince1970: $0)
                }
            )
        }
    }

    private func write(_ what: String, _ body: (Database) throws -> Void) throws(AppexError) {
        try SharedDatabase.write(database, what, path: path, context: context.errorContext(path: path), body)
    }
}
