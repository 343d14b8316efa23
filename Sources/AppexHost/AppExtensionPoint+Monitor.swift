public import AppexCore
import AppexSystem
import AppexVocabulary
import Foundation
public import Logging
public import Observation
import Synchronization

extension AppExtensionPoint {
    /// Watches which extensions of one or more points are available, and why others are not.
    ///
    /// Mirrors ExtensionKit's `AppExtensionPoint.Monitor`: ``identities`` are the enabled,
    /// valid extensions; ``state`` counts the disabled, unapproved and invalid ones; ``updates``
    /// delivers a new ``Snapshot`` whenever that changes — an extension installed or removed,
    /// a file changed, or the owner's decision changed from any process (the `appex` CLI
    /// included). Changes are seen through inotify on Linux (polling elsewhere).
    ///
    /// The monitor is `Observable`: `Observations { monitor.identities }` (the Observation
    /// framework) yields each new list, as SwiftUI would redraw on it.
    ///
    /// Keep the monitor alive while you use it: when it is released it stops watching and its
    /// update sequences finish.
    public final class Monitor: Sendable, Observable {
        /// The extensions of the monitored points: the enabled ones, and how many are not.
        public struct State: Hashable, Sendable {
            /// The enabled, valid extensions, sorted by bundle identifier (as
            /// ``Monitor/identities``).
            public var identities: [AppExtensionIdentity]
            /// Valid and enabled: how many ``identities`` lists.
            public var enabledCount: Int
            /// Valid, disabled by the owner.
            public var disabledCount: Int
            /// Valid, found outside the host, waiting for the owner's approval.
            public var unapprovedCount: Int
            /// Found but invalid (bad signature, bad Info.plist, ...); never run.
            public var invalidCount: Int

            /// Makes a state from its list and counts.
            public init(
                identities: [AppExtensionIdentity] = [],
                enabledCount: Int,
                disabledCount: Int,
                unapprovedCount: Int,
                invalidCount: Int
            ) {
                self.identities = identities
                self.enabledCount = enabledCount
                self.disabledCount = disabledCount
                self.unapprovedCount = unapprovedCount
                self.invalidCount = invalidCount
            }
        }

        /// What the monitor sees at one moment.
        public struct Snapshot: Hashable, Sendable {
            /// The enabled, valid extensions, sorted by bundle identifier.
            public var identities: [AppExtensionIdentity]
            /// Counts by state.
            public var state: State
            /// Every extension found for the monitored points, with its state and problems.
            public var extensions: [DiscoveredExtension]
        }

        private let core: MonitorCore
        private let registrar = ObservationRegistrar()

        /// Starts monitoring `appExtensionPoint` of the host at `hostPath`.
        ///
        /// Creation reads and validates everything once before it returns, like Apple's.
        ///
        /// - Throws: ``/AppexVocabulary/AppexError`` `invalidBundle` when the host bundle is not valid;
        ///   `undeclaredExtensionPoint` when the host does not declare the point.
        public init(
            appExtensionPoint: AppExtensionPoint,
            hostBundleAt hostPath: String,
            environment: AppexEnvironment = .current(),
            logger: Logger = Logger(label: "appex.monitor", factory: { _ in SwiftLogNoOpLogHandler() })
        ) async throws(AppexError) {
            let discovery = try ExtensionDiscovery(hostBundleAt: hostPath, environment: environment)
            let point = try Self.checkDeclared(appExtensionPoint, in: discovery)
            core = MonitorCore(discovery: discovery, points: [point], logger: logger)
            core.onChange = { [weak self] in self?.changed() }
            try await core.start()
        }

        /// Starts monitoring `appExtensionPoint` of the running app, as ExtensionKit's
        /// `AppExtensionPoint.Monitor(point)` does: the host is found as `Bundle.main` is
        /// (``/AppexCore/AppexBundle/mainBundlePath()``: the `.app` holding the running executable, or
        /// `APPEX_MAIN_BUNDLE`).
        ///
        /// ```swift
        /// let monitor = try await AppExtensionPoint.Monitor(.myExampleExtensionPoint)
        /// for identity in monitor.identities { print(identity.localizedName) }
        /// ```
        ///
        /// - Throws: ``/AppexVocabulary/AppexError`` `not-found` when the process runs from no app bundle; as
        ///   ``init(appExtensionPoint:hostBundleAt:environment:logger:)`` otherwise.
        public convenience init(
            _ appExtensionPoint: AppExtensionPoint,
            environment: AppexEnvironment = .current(),
            logger: Logger = Logger(label: "appex.monitor", factory: { _ in SwiftLogNoOpLogHandler() })
        ) async throws(AppexError) {
            try await self.init(
                appExtensionPoint: appExtensionPoint,
                hostBundleAt: try AppexBundle.mainBundlePath(),
                environment: environment,
                logger: logger
            )
        }

        /// Starts monitoring `appExtensionPoint` of the running app: the labelled spelling of
        /// ``init(_:environment:logger:)``, as ExtensionKit's documentation writes it
        /// (`AppExtensionPoint.Monitor(appExtensionPoint: someExtensionPoint)`).
        ///
        /// - Throws: ``/AppexVocabulary/AppexError`` as ``init(_:environment:logger:)``.
        public convenience init(
            appExtensionPoint: AppExtensionPoint,
            environment: AppexEnvironment = .current(),
            logger: Logger = Logger(label: "appex.monitor", factory: { _ in SwiftLogNoOpLogHandler() })
        ) async throws(AppexError) {
            try await self.init(appExtensionPoint, environment: environment, logger: logger)
        }

        deinit { core.stop() }

        /// The enabled, valid extensions of the monitored points (observable).
        public var identities: [AppExtensionIdentity] {
            registrar.access(self, keyPath: \.identities)
            return core.latest.identities
        }

        /// The enabled extensions and the counts of the others (observable).
        public var state: State {
            registrar.access(self, keyPath: \.state)
            return core.latest.state
        }

        /// Everything the monitor sees now (observable).
        public var snapshot: Snapshot {
            registrar.access(self, keyPath: \.snapshot)
            return core.latest
        }

        /// Tells observers that what the monitor sees changed (called on the monitor's scan queue,
        /// after the new snapshot is in place).
        private func changed() {
            registrar.withMutation(of: self, keyPath: \.identities) {}
            registrar.withMutation(of: self, keyPath: \.state) {}
            registrar.withMutation(of: self, keyPath: \.snapshot) {}
        }

        /// The points monitored.
        public var appExtensionPoints: [AppExtensionPoint] { core.points.map(AppExtensionPoint.init(identifier:)) }

        /// Adds a point to monitor.
        ///
        /// - Throws: ``/AppexVocabulary/AppexError`` `undeclaredExtensionPoint` when the host does not declare it.
        public func addAppExtensionPoint(_ point: AppExtensionPoint) async throws(AppexError) {
            await core.add(try Self.checkDeclared(point, in: core.discovery))
        }

        /// Every change, as a new snapshot. Iteration starts with the current snapshot; when
        /// changes come faster than they are consumed, only the newest is kept.
        public var updates: Updates { Updates(core: core) }

        /// The sequence of ``Snapshot``s a monitor delivers.
        public struct Updates: AsyncSequence, Sendable {
            public typealias Element = Snapshot
            public typealias Failure = Never
            let core: MonitorCore

            public func makeAsyncIterator() -> AsyncIterator {
                AsyncIterator(base: core.subscribe().makeAsyncIterator())
            }

            /// Iterates snapshots.
            public struct AsyncIterator: AsyncIteratorProtocol {
                var base: AsyncStream<Snapshot>.Iterator
                public mutating func next() async -> Snapshot? { await base.next() }
            }
        }

        /// The identifier of `point` in the host `discovery` reads — a point defined in code
        /// outside an app bundle (empty host part) is the host's point of that name — checked
        /// to be one the host declares.
        private static func checkDeclared(
            _ point: AppExtensionPoint,
            in discovery: ExtensionDiscovery
        ) throws(AppexError) -> ExtensionPointIdentifier {
            let host = try discovery.host()
            var point = point
            if point.identifier.hostBundleIdentifier.isEmpty, let hostIdentifier = host.bundleIdentifier {
                point = AppExtensionPoint(host: hostIdentifier, name: point.identifier.name)
            }
            let declared = host.extensionPoints.map(\.identifier)
            guard declared.contains(point.identifier) else {
                let list = declared.sorted().map(\.description).joined(separator: ", ")
                throw AppexError(
                    .undeclaredExtensionPoint,
                    "extension point \(point) is not declared by host \(host.bundleIdentifier ?? "?") at \(host.path) (it declares: \(list.isEmpty ? "none" : list); add ExtensionPoints/\(point.identifier.name).appextensionpoint)",
                    context: AppexError.Context(
                        bundleIdentifier: host.bundleIdentifier,
                        path: host.path,
                        extensionPoint: point.identifier
                    )
                )
            }
            return point.identifier
        }
    }
}
