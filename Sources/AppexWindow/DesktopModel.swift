import AppexCore
import AppexHost
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Synchronization

/// What the widget desktop and its settings show, kept current by one loop over the widget
/// host's updates, and the tiles and rows each open page is sent when they change.
final class DesktopModel: Sendable {
    enum Surface { case desktop, settings }

    static let desktopID = "desktop"
    static let settingsID = "widget-extensions"

    let host: WidgetHost
    private let renderer: HTMLRenderer
    private let state = Mutex<State>(State())
    private let tasks = Mutex<[Task<Void, Never>]>([])

    private struct Tile: Equatable {
        var key: String
        var id: String
        var markup: Markup
    }

    private struct State {
        var loaded = false
        var states: [WidgetState] = []
        var tiles: [Tile] = []
        var rows: [ExtensionRow] = []
        var watchers: [Int: (Surface, AsyncStream<WindowUpdate>.Continuation)] = [:]
        var nextWatcher = 0
    }

    init(host: WidgetHost, family: WidgetFamily?) {
        self.host = host
        var renderer = HTMLRenderer()
        renderer.styleAttribute = "data-style"
        self.renderer = renderer
        let updates = host.updates(family: family)
        let following = Task { [weak self] in
            for await states in updates {
                guard let self else { return }
                self.apply(states)
            }
        }
        // "Updated N minutes ago" moves on with no new state.
        let ticking = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(20))
                guard let self else { return }
                self.apply(self.state.withLock { $0.states })
            }
        }
        tasks.withLock { $0 = [following, ticking] }
    }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        for (_, watcher) in state.withLock({ $0.watchers }) { watcher.1.finish() }
    }

    /// The desktop as it is now.
    func desktop() async -> Markup { desktopMarkup(state.withLock { ($0.loaded, $0.tiles) }) }

    /// The settings as they are now.
    func settings() async -> Markup {
        .group([
            .element("h2", [:], [.text("Widget extensions")]),
            .element(
                "p",
                ["class": "points"],
                [.text("Every widget extension on this machine. Where they are looked for: \(host.searchDescription).")]
            ),
            settingsMarkup(state.withLock { $0.rows }),
        ])
    }

    /// Every change of `surface`, from now; first, the whole of it.
    func subscribe(to surface: Surface) -> AsyncStream<WindowUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: WindowUpdate.self)
        let id = state.withLock { state in
            let id = state.nextWatcher
            state.nextWatcher += 1
            state.watchers[id] = (surface, continuation)
            continuation.yield(
                surface == .desktop
                    ? WindowUpdate(id: Self.desktopID, markup: desktopMarkup((state.loaded, state.tiles)))
                    : WindowUpdate(id: Self.settingsID, markup: settingsMarkup(state.rows))
            )
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Opens the app of the widget `key` with `url`, which its current entry must hold (its
    /// `widgetURL` when `url` is nil).
    func open(key: String, url: String?) throws(AppexError) {
        let widget = try shown(key)
        let now = host.configuration.environment.clock.now
        let tree = widget.entry(at: now)?.tree ?? widget.placeholder
        var target: URL?
        if let url {
            guard tree?.destinations.contains(url) == true, let parsed = URL(string: url) else {
                throw AppexError(
                    .refused,
                    "widget \(widget.key.kind) does not show a link to \(url) now, so the window does not open it",
                    context: AppexError.Context(
                        bundleIdentifier: widget.key.extensionIdentifier,
                        widgetKind: widget.key.kind
                    )
                )
            }
            target = parsed
        }
        try host.open(target, from: widget, at: now)
    }

    /// Performs the intent of control `index` of the widget `key`, as the widget host does; the
    /// widget's next timeline then reaches the page through the updates.
    func performIntent(key: String, index: Int) async throws(AppexError) {
        let widget = try shown(key)
        try await host.performIntent(index, of: widget)
    }

    /// The widget `key`, as the desktop shows it now.
    private func shown(_ key: String) throws(AppexError) -> WidgetState {
        guard let widget = state.withLock({ $0.states.first { $0.key.description == key } }) else {
            throw AppexError(.notFound, "no widget \(key) is on the desktop", context: AppexError.Context(key: key))
        }
        return widget
    }

    /// Keeps `states`, draws them, and sends each open page what changed.
    private func apply(_ all: [WidgetState]) {
        // As `appex widgets run` shows them: enabled, with a kind.
        let states = all.filter { $0.discovered.state == .enabled && !$0.key.kind.isEmpty }
        let now = host.configuration.environment.clock.now
        let tiles = states.map { tile(of: $0, at: now) }
        let rows = ((try? host.extensions()) ?? []).map { ExtensionRow(found: $0, summary: nil) }
        let sends = state.withLock { state -> [(AsyncStream<WindowUpdate>.Continuation, [WindowUpdate])] in
            let (wasLoaded, oldTiles, oldRows) = (state.loaded, state.tiles, state.rows)
            state.loaded = true
            state.states = states
            state.tiles = tiles
            state.rows = rows
            var desktop: [WindowUpdate] = []
            if !wasLoaded || oldTiles.map(\.id) != tiles.map(\.id) {
                desktop = [WindowUpdate(id: Self.desktopID, markup: desktopMarkup((true, tiles)))]
            } else {
                desktop = zip(oldTiles, tiles).filter { $0 != $1 }.map { WindowUpdate(id: $1.id, markup: $1.markup) }
            }
            var settings: [WindowUpdate] = []
            if oldRows.map(\.id) != rows.map(\.id) {
                settings = [WindowUpdate(id: Self.settingsID, markup: settingsMarkup(rows))]
            } else {
                settings = zip(oldRows, rows).filter { $0 != $1 }.map { WindowUpdate(id: $1.id, markup: $1.markup) }
            }
            return state.watchers.values.map { ($0.1, $0.0 == .desktop ? desktop : settings) }
        }
        for (watcher, updates) in sends {
            for update in updates { watcher.yield(update) }
        }
    }

    /// One widget's tile: the widget host's own HTML of it (escaped there; its styles in
    /// `data-style`), and when it last got a timeline.
    private func tile(of widget: WidgetState, at now: Date) -> Tile {
        let key = widget.key.description
        let id = ElementID.make("widget", for: key)
        let health: String =
            switch widget.health {
            case .current: "current"
            case .notLoaded: "not-loaded"
            case .stale: "stale"
            case .budgetExhausted: "budget-exhausted"
            }
        let markup = Markup.element(
            "section",
            ["id": id, "class": "widget-tile", "data-widget": key, "data-health": health],
            [
                .trusted(renderer.fragment(widget.frame(at: now))),
                .element("p", ["class": "updated"], [.text(Self.updated(widget.fetchedAt, now: now))]),
            ]
        )
        return Tile(key: key, id: id, markup: markup)
    }

    /// "updated just now", "updated 1 minute ago", "updated 3 hours ago", "never updated".
    static func updated(_ fetched: Date?, now: Date) -> String {
        guard let fetched else { return "never updated" }
        let minutes = Int(max(0, now.timeIntervalSince(fetched)) / 60)
        switch minutes {
        case 0: return "updated just now"
        case 1: return "updated 1 minute ago"
        case 2..<120: return "updated \(minutes) minutes ago"
        default: return "updated \(minutes / 60) hours ago"
        }
    }

    private func desktopMarkup(_ value: (loaded: Bool, tiles: [Tile])) -> Markup {
        let children: [Markup]
        if !value.loaded {
            children = [.element("p", ["class": "empty"], [.text("Loading widgets…")])]
        } else if value.tiles.isEmpty {
            children = [
                .element("p", ["class": "empty"], [.text("No widgets are enabled. Turn some on in the settings.")])
            ]
        } else {
            children = value.tiles.map(\.markup)
        }
        return .element("div", ["id": Self.desktopID, "class": "widgets"], children)
    }

    private func settingsMarkup(_ rows: [ExtensionRow]) -> Markup {
        let items: [Markup] =
            rows.isEmpty
            ? [.element("li", ["class": "empty"], [.text("No widget extensions were found.")])]
            : rows.map(\.markup)
        return .element("ul", ["id": Self.settingsID, "class": "extensions"], items)
    }
}
