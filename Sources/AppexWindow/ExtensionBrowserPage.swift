public import AppexCore
import AppexHost
public import AppexVocabulary
import Foundation
import Synchronization

/// The extension browser (ExtensionKit's `EXAppExtensionBrowserViewController`): every
/// extension known for a host's points, enabled, disabled, unapproved or invalid, with a toggle
/// that approves or disables it, as `appex enable` and `appex disable` do.
///
/// Any host mounts it in its own window:
///
/// ```swift
/// let browser = try await ExtensionBrowserPage(hostBundleAt: "/opt/MyApp.app")
/// let window = try WindowServer(pages: [browser])
/// ```
///
/// Each row shows an extension's name, bundle identifier and state; its team and whether it
/// ships inside the app or came from elsewhere; its point, entitlements and sandbox tier; and,
/// when it cannot run, `appex doctor`'s reasons. An install, a removal, a tampered seal or an
/// approval changed from any process (a shell's `appex enable` included) replaces its row on
/// every open page, from the host's `AppExtensionPoint.Monitor`. Only the host builds the rows:
/// what an extension supplies (its name, its identifier) shows as text.
public final class ExtensionBrowserPage: WindowPage {
    /// Where the page is served.
    public let path: String
    /// "Extensions".
    public var title: String { "Extensions" }

    private let discovery: ExtensionDiscovery
    private let monitor: AppExtensionPoint.Monitor?
    private let state = Mutex<State>(State())
    private let watching = Mutex<Task<Void, Never>?>(nil)

    private struct State {
        var rows: [ExtensionRow] = []
        var watchers: [Int: AsyncStream<WindowUpdate>.Continuation] = [:]
        var nextWatcher = 0
    }

    /// The browser of the extensions of every point the host at `hostPath` declares, served
    /// at `path`.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidBundle` when the host's bundle is not
    ///   valid.
    public init(
        hostBundleAt hostPath: String,
        path: String = "/extensions",
        environment: AppexEnvironment = .current()
    ) async throws(AppexError) {
        self.path = path
        discovery = try ExtensionDiscovery(hostBundleAt: hostPath, environment: environment)
        let points = try discovery.host().extensionPoints.map { AppExtensionPoint(identifier: $0.identifier) }
        if let first = points.first {
            let monitor = try await AppExtensionPoint.Monitor(
                appExtensionPoint: first,
                hostBundleAt: hostPath,
                environment: environment
            )
            for point in points.dropFirst() { try await monitor.addAppExtensionPoint(point) }
            self.monitor = monitor
            apply(monitor.snapshot.extensions)
            let updates = monitor.updates
            watching.withLock {
                $0 = Task { [weak self] in
                    for await snapshot in updates {
                        guard let self else { return }
                        self.apply(snapshot.extensions)
                    }
                }
            }
        } else {
            monitor = nil
        }
    }

    deinit {
        watching.withLock { $0?.cancel() }
        for watcher in state.withLock({ Array($0.watchers.values) }) { watcher.finish() }
    }

    /// The list, as it is now.
    public func render() async throws(AppexError) -> Markup {
        let host = try discovery.host()
        let points = host.extensionPoints.map(\.identifier.description)
        return .group([
            .element("h2", [:], [.text("Extensions of \(host.info.localizedName)")]),
            .element(
                "p",
                ["class": "points"],
                [
                    .text(
                        points.isEmpty
                            ? "It declares no extension points." : "Its points: " + points.joined(separator: ", ")
                    )
                ]
            ),
            list(state.withLock { $0.rows }),
        ])
    }

    /// The rows that change, each as it changes; the whole list when one is added or removed.
    public func updates() -> AsyncStream<WindowUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: WindowUpdate.self)
        let id = state.withLock { state in
            let id = state.nextWatcher
            state.nextWatcher += 1
            state.watchers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// `set-enabled`, from a row's toggle: enables (`checked=true`) or disables the extension
    /// `bundle`, as `appex enable` and `appex disable` do.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidValue` for another action or a missing
    ///   field; ``/AppexHost/ExtensionDiscovery/setEnabled(_:bundleIdentifier:)``'s errors (an invalid
    ///   extension cannot be enabled).
    public func perform(_ action: WindowAction) async throws(AppexError) {
        let (bundle, enabled) = try action.enablement(on: "the extension browser")
        try discovery.setEnabled(enabled, bundleIdentifier: bundle)
    }

    /// Builds the rows of `extensions` and sends what changed to every open page.
    private func apply(_ extensions: [DiscoveredExtension]) {
        let host = try? discovery.host()
        // A row whose extension is as it was keeps its summary: one change costs one row.
        let previous = state.withLock { state in
            Dictionary(state.rows.map { ($0.found.path, $0) }, uniquingKeysWith: { first, _ in first })
        }
        let rows = extensions.map { found in
            if let row = previous[found.path], row.found == found { return row }
            return ExtensionRow(
                found: found,
                summary: host.map { discovery.summary(of: found, among: extensions, host: $0) }
            )
        }
        let (updates, watchers) = state.withLock {
            state -> ([WindowUpdate], [AsyncStream<WindowUpdate>.Continuation]) in
            let old = state.rows
            state.rows = rows
            guard old != rows else { return ([], []) }
            let updates: [WindowUpdate]
            if old.map(\.id) == rows.map(\.id) {
                updates = zip(old, rows).filter { $0 != $1 }.map { WindowUpdate(id: $1.id, markup: $1.markup) }
            } else {
                updates = [WindowUpdate(id: ExtensionRow.listID, markup: list(rows))]
            }
            return (updates, Array(state.watchers.values))
        }
        for watcher in watchers {
            for update in updates { watcher.yield(update) }
        }
    }

    private func list(_ rows: [ExtensionRow]) -> Markup {
        let items: [Markup] =
            rows.isEmpty
            ? [.element("li", ["class": "empty"], [.text("No extensions are installed for this app's points.")])]
            : rows.map(\.markup)
        return .element("ul", ["id": ExtensionRow.listID, "class": "extensions"], items)
    }
}
