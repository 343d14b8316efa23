public import AppexCore
import Synchronization

/// The process's data-sharing switch as the Salesforce SDK's `SFSDKDatasharingHelper` has it:
/// settable ``appGroupName`` and ``appGroupEnabled`` on a shared instance, over ``DataSharing``.
///
/// ```swift
/// DataSharingHelper.shared.appGroupName = "group.com.salesforce.mobilesyncexplorer"
/// DataSharingHelper.shared.appGroupEnabled = true     // moves this process's own keys in, once
/// DataSharingHelper.shared.defaults.set(true, forKey: "userLoggedIn")
/// ```
///
/// Setting a property does what ``DataSharing`` does, under a lock so that two threads'
/// settings apply one after the other: turning ``appGroupEnabled`` on copies the process's own
/// keys into the group (``DataSharing/enableAppGroup(_:)``), off copies the group's back
/// (``DataSharing/disableAppGroup()``); naming another group while sharing is on switches to it;
/// naming one while it is off records the name only. The state is the one ``DataSharing`` keeps
/// in the process's own suite, so every later process of the bundle reads it.
///
/// A setter cannot throw. A set that is refused — an app group the process is not entitled
/// to, turning sharing on with no group named, a storage failure — leaves both properties as
/// they were and is kept in ``lastRefusal``; ``setAppGroup(_:enabled:)`` does the same and
/// throws it.
///
/// ``shared`` works for the process's own bundle: its context is ``ProcessContext/current()``
/// (an extension, or a host app launched with `APPEX_BUNDLE_PATH`), found at its first use. A
/// host app that finds its bundle otherwise sets ``shared`` to a helper made with
/// ``init(context:environment:)`` before its first use, as tests do.
/// AppexSalesforce spells it as the SDK does: `SFSDKDatasharingHelper.sharedInstance()`.
public final class DataSharingHelper: Sendable {
    /// Where the helper's ``DataSharing`` comes from.
    private enum Source: Sendable {
        /// Opened for an explicit context.
        case opened(DataSharing)
        /// The running process's, from ``ProcessContext/current()``, opened at first use.
        case process(AppexEnvironment)
    }

    private struct State {
        var sharing: DataSharing?
        var lastRefusal: AppexError?
        var lastWriteError: AppexError?
        /// The groups' suites opened for ``defaults``, by group name: opened once each.
        var suites: [String: SharedDefaults] = [:]
    }

    private let source: Source
    private let state: Mutex<State>

    /// A helper for `context`'s defaults (the SDK has one per process; tests and tools make one
    /// per context, and a host may install one as ``shared``).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` from ``DataSharing/init(context:environment:)``.
    public init(context: ProcessContext, environment: AppexEnvironment = .current()) throws(AppexError) {
        let sharing = try DataSharing(context: context, environment: environment)
        source = .opened(sharing)
        state = Mutex(State(sharing: sharing))
    }

    private init(environment: AppexEnvironment) {
        source = .process(environment)
        state = Mutex(State())
    }

    // MARK: - The shared instance

    private static let installed = Mutex(DataSharingHelper(environment: .current()))

    /// The process's helper. By default it acts for ``ProcessContext/current()`` in
    /// ``/AppexCore/AppexEnvironment/current()``; set it to a helper for another context (a host app that
    /// knows its bundle, a test) before the code that uses it runs.
    public static var shared: DataSharingHelper {
        get { installed.withLock { $0 } }
        set { installed.withLock { $0 = newValue } }
    }

    // MARK: - The settings

    /// The app group the process shares its defaults through: the SDK's `appGroupName`. `nil`
    /// when none was ever named, or when the process's context cannot be found.
    ///
    /// Setting it while sharing is on switches to the new group (copying the process's keys
    /// back from the old one, then into the new one); `nil` turns sharing off and forgets the
    /// name. While sharing is off it records the name only. A refused set changes nothing and
    /// is kept in ``lastRefusal``.
    public var appGroupName: String? {
        get { (try? settled { sharing throws(AppexError) in try sharing.state().name }) ?? nil }
        set {
            apply { sharing throws(AppexError) in
                let enabled = try sharing.state().enabled
                try Self.set(newValue, enabled: newValue != nil && enabled, in: sharing)
            }
        }
    }

    /// Whether the process's defaults live in ``appGroupName``'s suite: the SDK's
    /// `appGroupEnabled`. `false` when the process's context cannot be found.
    ///
    /// Setting it `true` moves the process's own keys into the group (once; afterwards only
    /// what it wrote while off), `false` copies the group's keys back. Turning it on with no
    /// group named is refused (`invalidName`). A refused set changes nothing and is kept in
    /// ``lastRefusal``.
    public var appGroupEnabled: Bool {
        get { (try? settled { sharing throws(AppexError) in try sharing.state().enabled }) ?? false }
        set {
            apply { sharing throws(AppexError) in
                try Self.set(try sharing.state().name, enabled: newValue, in: sharing)
            }
        }
    }

    /// Why the last set of ``appGroupName`` or ``appGroupEnabled`` (or the last
    /// ``setAppGroup(_:enabled:)``) was refused; `nil` when it succeeded. The properties kept
    /// their values. The error names the group and the process (`missingEntitlement`:
    /// `com.example.app (team T) is not entitled to app group G`).
    public var lastRefusal: AppexError? { state.withLock { $0.lastRefusal } }

    /// Sets both settings at once, throwing what a property's setter keeps in ``lastRefusal``:
    /// `enabled` with a `name` shares through it (switching from another group), `false` keeps
    /// the defaults to the process and records `name` (`nil`: forgets it).
    ///
    /// Blocks while another process of the bundle holds its suite's write lock.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError``, and nothing changes: `missingEntitlement`/`teamMismatch` for a
    ///   group the process may not open (naming the group and the process), `invalidName` for
    ///   `enabled` with no name or a name that cannot name a group, `untrustedProcess` when
    ///   ``shared`` cannot find the process's context, `conflict` or `storage` from the switch
    ///   (a repeated call resumes it).
    public func setAppGroup(_ name: String?, enabled: Bool) throws(AppexError) {
        try applying { sharing throws(AppexError) in try Self.set(name, enabled: enabled, in: sharing) }
    }

    /// One set: checks `name` before anything moves, then switches and records.
    private static func set(_ name: String?, enabled: Bool, in sharing: DataSharing) throws(AppexError) {
        if enabled {
            guard let name else {
                throw AppexError(
                    .invalidName,
                    "\(sharing.context.name) cannot turn on data sharing: no app group is named (set appGroupName first)",
                    context: sharing.context.errorContext()
                )
            }
            try sharing.enableAppGroup(name)  // checks the entitlement before it changes anything
            return
        }
        // Checked before turning sharing off, so that a refused name leaves sharing as it was.
        if let name { _ = try AppGroup(name, context: sharing.context, environment: sharing.environment) }
        try sharing.disableAppGroup()
        try sharing.recordAppGroupName(name)
    }

    // MARK: - The defaults

    /// The process's defaults, wherever sharing keeps them: the SDK's
    /// `UserDefaults.msdkUserDefaults()`. Each call reads the current setting, so the defaults
    /// follow a switch made after they were taken.
    public var defaults: ProcessDefaults { ProcessDefaults(helper: self) }

    /// The suite the settings name now: the group's when sharing is on, the process's own
    /// otherwise. A group's suite is opened once per helper.
    func currentSuite() throws(AppexError) -> SharedDefaults {
        let sharing = try sharing()
        let current = try sharing.state()
        guard current.enabled, let name = current.name else { return sharing.standard }
        if let suite = state.withLock({ $0.suites[name] }) { return suite }
        let suite = try SharedDefaults(
            group: AppGroup(name, context: sharing.context, environment: sharing.environment)
        )
        state.withLock { $0.suites[name] = suite }
        return suite
    }

    /// Writes to the suite the settings name, between sets: a write never lands in a suite a
    /// switch in this process has just left. (Another process of the bundle may still switch
    /// meanwhile, as ``DataSharing/defaults()`` says; the own suite then refuses the write with
    /// `conflict`, and it is made once more, to the suite named now.)
    func write(_ body: (SharedDefaults) throws(AppexError) -> Void) throws(AppexError) {
        try Self.serial.withLock { _ throws(AppexError) in
            do throws(AppexError) {
                try body(try currentSuite())
            } catch let error where error.code == .conflict {
                try body(try currentSuite())
            }
        }
    }

    /// What the last failed write through ``defaults`` said; `nil` once one succeeds.
    var lastWriteError: AppexError? {
        get { state.withLock { $0.lastWriteError } }
        set { state.withLock { $0.lastWriteError = newValue } }
    }

    // MARK: - Steps

    /// Reads the settings between sets, never in the middle of one (a switch between two groups
    /// is off for a moment).
    private func settled<Value: Sendable>(
        _ body: (DataSharing) throws(AppexError) -> Value
    ) throws(AppexError) -> Value {
        let sharing = try sharing()
        return try Self.serial.withLock { _ throws(AppexError) in try body(sharing) }
    }

    /// The helper's ``DataSharing``, opened for the running process at the first call that
    /// finds its context (a failure is not kept: the next call tries again).
    private func sharing() throws(AppexError) -> DataSharing {
        switch source {
        case .opened(let sharing):
            return sharing
        case .process(let environment):
            if let sharing = state.withLock({ $0.sharing }) { return sharing }
            let sharing = try DataSharing(context: ProcessContext.current(), environment: environment)
            return state.withLock { state in
                if let first = state.sharing { return first }
                state.sharing = sharing
                return sharing
            }
        }
    }

    /// Runs one set under the lock (so sets from two threads apply one after the other),
    /// recording its outcome in ``lastRefusal``, and throws its refusal.
    private func applying(_ body: (DataSharing) throws(AppexError) -> Void) throws(AppexError) {
        let sharing = try recording { () throws(AppexError) in try self.sharing() }
        try recording { () throws(AppexError) in
            try Self.serial.withLock { _ throws(AppexError) in try body(sharing) }
        }
    }

    /// As ``applying(_:)``, for a setter: the refusal is only kept.
    private func apply(_ body: (DataSharing) throws(AppexError) -> Void) {
        do { try applying(body) } catch {}  // kept in lastRefusal by applying
    }

    private func recording<Value>(_ body: () throws(AppexError) -> Value) throws(AppexError) -> Value {
        do {
            let value = try body()
            state.withLock { $0.lastRefusal = nil }
            return value
        } catch {
            state.withLock { $0.lastRefusal = error }
            throw error
        }
    }

    /// Serializes the sets of every helper of the process: two helpers of one bundle share its
    /// own suite, and a switch is a sequence of transactions.
    private static let serial = Mutex(())
}
