public import AppexCore
public import AppexHost
import AppexVocabulary
import AppexWidgetKit
import Foundation
public import Logging
import Synchronization

/// The system's widget host: finds widget extensions in the apps on the apps path, launches
/// each only when a timeline is needed, keeps every timeline and the reload budget under
/// `$APPEX_HOME/Widgets`, and hands renderers the entry that is current.
///
/// ```swift
/// let host = try WidgetHost()
/// for widget in try await host.refresh() {
///     print(TerminalRenderer().render(widget.frame()))
/// }
/// ```
///
/// As on Apple platforms, a widget is shown by the system, never by its app: it binds to
/// `com.apple.widgetkit-extension` (or the legacy Today point `com.apple.widget-extension`),
/// ships in an app's `Extensions/` folder, and reaches its app's world only through shared
/// state. Apps ask for reloads with `WidgetCenter`.
public final class WidgetHost: Sendable {
    /// How the widget host runs.
    public struct Configuration: Sendable {
        /// Where state lives and where apps are (``/AppexCore/AppexEnvironment/appsPath``).
        public var environment: AppexEnvironment
        /// Timeline fetches each widget may cause per day (UTC). Default 40, as WidgetKit gives a
        /// frequently viewed widget.
        public var dailyReloadBudget = 40
        /// How long a widget extension may take to launch and answer. Default 10 s.
        public var deadline: Duration = .seconds(10)
        /// The least time between two fetches a timeline's policy causes (reload requests and
        /// first displays are not held back). Default 5 minutes, as WidgetKit.
        public var minimumReloadInterval: Duration = .seconds(300)
        /// How long after a failed fetch the host tries again, unless a reload is requested.
        /// Default 5 minutes.
        public var retryInterval: Duration = .seconds(300)
        /// How many widget extensions run at once. Default 4.
        public var concurrentFetches = 4
        /// How long a widget extension's process stays up after it last answered, for the next
        /// timeline request of any of its widgets, as WidgetKit keeps a widget's process: a reload
        /// within it costs no launch. Default 30 s; zero ends each process once its widgets are
        /// shown. A warm process that crashes is treated as a cold one's crash: the widget it was
        /// answering for is stale, with the reason, and the next fetch launches a new process.
        public var warmPeriod: Duration = .seconds(30)
        /// The resident memory the warm processes may take together, in bytes: past it, the least
        /// recently used are ended after each fetch. Default 64 MiB.
        public var warmMemoryBudget: UInt64 = 64 << 20
        /// Where the host logs launches and failures; widgets' output goes here too.
        public var logger: Logger
        /// Whether widgets' memory limit holds as an address-space limit even where a memory
        /// cgroup could hold it (``AppExtensionProcess/Configuration``'s; the tests' switch).
        package var limitsMemoryByAddressSpace = false

        /// The defaults, in `environment`.
        public init(
            environment: AppexEnvironment = .current(),
            logger: Logger = Logger(label: "appex.widgets", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.environment = environment
            self.logger = logger
        }
    }

    /// WidgetKit's point.
    public static let widgetKitPoint = ExtensionPointIdentifier(host: "com.apple", name: "widgetkit-extension")
    /// The legacy Today point (iOS 8–13 "Today" extensions).
    public static let todayPoint = ExtensionPointIdentifier(host: "com.apple", name: "widget-extension")

    /// The configuration.
    public let configuration: Configuration
    package let discovery: ExtensionDiscovery
    let store: WidgetStore
    let trees = ViewTreeCache()
    /// The widget extensions' processes kept up after they answered (``Configuration/warmPeriod``).
    let warm = WarmProcesses()
    /// Each shown Live Activity as last drawn, by its identifier (WidgetHost+Activities).
    let drawnActivities = Mutex<[String: DrawnActivity]>([:])

    /// Opens the widget host's state and discovery.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `registry` or `storage` when the state under `APPEX_HOME`
    ///   cannot be opened.
    public init(configuration: Configuration = Configuration()) throws(AppexError) {
        self.configuration = configuration
        let points = [Self.widgetKitPoint, Self.todayPoint].map {
            // Widgets come from every installed app and from APPEX_EXTENSIONS_PATH.
            ExtensionPointDeclaration(identifier: $0, scope: AppExtensionPoint.Scope.Restriction.none)
        }
        let system = AppexBundle.systemHost(
            identifier: "com.apple",
            points: points,
            path: configuration.environment.home + "/Widgets"
        )
        discovery = try ExtensionDiscovery(systemHost: system, environment: configuration.environment)
        store = try WidgetStore(environment: configuration.environment)
    }

    deinit {
        warm.endAll()
    }

    /// Ends the widget processes kept warm now, rather than when their warm period runs out:
    /// the next fetch of each launches it again.
    public func endWarmProcesses() {
        warm.endAll()
    }

    /// How many widget extension processes are kept warm now (``Configuration/warmPeriod``).
    public var warmProcessCount: Int { warm.count }

    /// The pids of the processes kept warm, by bundle identifier (the tests' view).
    package var warmProcessIdentifiers: [String: Int32] { warm.processIdentifiers }

    /// Every widget extension found, whatever its state, with why it may or may not run.
    public func extensions() throws(AppexError) -> [DiscoveredExtension] {
        try discovery.snapshot().extensions
    }

    /// Enables or disables a widget extension. Widgets inside an app signed by the app's team
    /// are enabled by default; others (on `APPEX_EXTENSIONS_PATH`) wait for the owner.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `notFound` (no such widget extension), `refused` (enabling an
    ///   invalid one), `registry`.
    public func setEnabled(_ enabled: Bool, bundleIdentifier: String) throws(AppexError) {
        try discovery.setEnabled(enabled, bundleIdentifier: bundleIdentifier)
    }

    /// Where the host looks for widgets, in words.
    public var searchDescription: String { discovery.searchDescription }

    /// The folder where apps leave reload requests.
    var reloadsFolder: String { StateRoot.widgetReloads(home: configuration.environment.home) }
}
