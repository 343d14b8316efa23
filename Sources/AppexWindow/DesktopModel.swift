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
        /// Renders waiting for the first states (a page opened while the host fetches).
        var loadWaiters: [CheckedContinuation<Void, Never>] = []
        var states: [WidgetState] = []
        /// Each kept widget's label, by key: read from its bundles when the host's states come.
        var labels: [String: TileLabel] = [:]
        /// Each configurable widget's configuration, by key: read when the host's states come (a
        /// change from anywhere brings new states), not at every redraw.
        var configurations: [String: [String: String]] = [:]
        var tiles: [Tile] = []
        var rows: [ExtensionRow] = []
        var watchers: [Int: (Surface, AsyncStream<WindowUpdate>.Continuation)] = [:]
        /// The widgets whose intent is being performed.
        var performing: Set<String> = []
        var nextWatcher = 0
    }

    init(host: WidgetHost, family: WidgetFamily?) {
        self.host = host
        var renderer = HTMLRenderer()
        renderer.styleAttribute = "data-style"
        renderer.linksThroughHost = true
        self.renderer = renderer
        let updates = host.updates(family: family)
        // One loop draws: the host's new states, and every 20 s the same states again ("updated
        // N minutes ago" moves on with no new state), in the order they came, so an older
        // drawing never replaces a newer one.
        let (inputs, input) = AsyncStream.makeStream(of: [WidgetState]?.self)
        let feeding = Task {
            for await states in updates { input.yield(states) }
            input.finish()
        }
        // The kept states drawn again at each entry's date (so an entry shows on time even while
        // the host is busy launching an extension), and at least every 20 s.
        let ticking = Task { [weak self] in
            while !Task.isCancelled {
                let wait = self?.untilNextEntry() ?? .seconds(20)
                try? await Task.sleep(for: wait)
                input.yield(nil)
            }
        }
        let following = Task { [weak self] in
            for await states in inputs {
                guard let self else { return }
                self.apply(states)
            }
        }
        tasks.withLock { $0 = [feeding, ticking, following] }
    }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        for (_, watcher) in state.withLock({ $0.watchers }) { watcher.1.finish() }
    }

    /// How long until the next entry of a kept widget is due (at most 20 s).
    private func untilNextEntry() -> Duration {
        let now = host.configuration.environment.clock.now
        let next = state.withLock { state in state.states.compactMap { $0.nextEntryDate(after: now) }.min() }
        guard let next else { return .seconds(20) }
        return .milliseconds(Int(min(20, max(0.005, next.timeIntervalSince(now) + 0.005)) * 1000))
    }

    /// The desktop as it is now.
    /// The desktop as it is now; the first time, once the host has shown its widgets (at most
    /// 10 s), so a page opened at start shows them rather than "Loading".
    func desktop() async -> Markup {
        await firstLoad(within: .seconds(10))
        return desktopMarkup(state.withLock { ($0.loaded, $0.tiles, !$0.rows.isEmpty) })
    }

    /// Returns once the first states are drawn, or after `limit`.
    private func firstLoad(within limit: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state -> Bool in
                guard !state.loaded else { return false }
                state.loadWaiters.append(continuation)
                return true
            }
            guard waiting else { return continuation.resume() }
            Task { [weak self] in
                try? await Task.sleep(for: limit)
                self?.releaseLoadWaiters()
            }
        }
    }

    /// Resumes every render waiting for the first states (each once: they are taken).
    private func releaseLoadWaiters() {
        for waiter in state.withLock({ state in
            defer { state.loadWaiters = [] }
            return state.loadWaiters
        }) { waiter.resume() }
    }

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
                    ? WindowUpdate(
                        id: Self.desktopID,
                        markup: desktopMarkup((state.loaded, state.tiles, !state.rows.isEmpty))
                    )
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
            guard tree?.destinations.contains(url) == true, HTMLEscaping.isSafeLink(url), let parsed = URL(string: url)
            else {
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
    func performIntent(key: String, index: Int, entry: String?) async throws(AppexError) {
        let widget = try shown(key)
        // The control tapped is the one drawn: the entry shown then must be the entry now.
        let now = host.configuration.environment.clock.now
        guard entry == Self.entryMark(widget, at: now) else {
            throw AppexError(
                .refused,
                "widget \(widget.key.kind) changed since the page drew it; tap again",
                context: AppexError.Context(
                    bundleIdentifier: widget.key.extensionIdentifier,
                    widgetKind: widget.key.kind
                )
            )
        }
        // One intent at a time per widget: each launches its extension and takes a reload.
        let started = state.withLock { $0.performing.insert(key).inserted }
        guard started else {
            throw AppexError(
                .refused,
                "widget \(widget.key.kind) is still performing the last tap",
                context: AppexError.Context(
                    bundleIdentifier: widget.key.extensionIdentifier,
                    widgetKind: widget.key.kind
                )
            )
        }
        defer { _ = state.withLock { $0.performing.remove(key) } }
        try await host.performIntent(index, of: widget, at: now)
    }

    /// Configures the widget `key` from its "Edit widget" form: `parameter` set to `value` as
    /// typed, or the `preset` picked, as `appex widgets configure` does; the reload it asks for
    /// brings the new timeline to the page through the updates.
    func configure(key: String, parameter: String?, value: String?, preset: String?) throws(AppexError) {
        let widget = try shown(key)
        if let preset {
            try host.configure(widget, preset: preset)
        } else if let parameter {
            try host.configure(widget, setting: [parameter: value ?? ""])
        } else {
            throw AppexError(
                .invalidValue,
                "an edit of widget \(widget.key.kind) names a parameter or a preset",
                context: AppexError.Context(key: key)
            )
        }
    }

    /// What identifies the entry a tile shows: its date (or "placeholder").
    static func entryMark(_ widget: WidgetState, at date: Date) -> String {
        widget.entry(at: date).map { "\($0.date.timeIntervalSince1970)" } ?? "placeholder"
    }

    /// The widget `key`, as the desktop shows it now.
    private func shown(_ key: String) throws(AppexError) -> WidgetState {
        guard let widget = state.withLock({ $0.states.first { $0.key.description == key } }) else {
            throw AppexError(.notFound, "no widget \(key) is on the desktop", context: AppexError.Context(key: key))
        }
        return widget
    }

    /// Keeps `states`, draws them, and sends each open page what changed.
    /// `all`: the host's new states; `nil`: the kept ones, drawn again (the extensions are not
    /// scanned again then).
    private func apply(_ all: [WidgetState]?) {
        let states: [WidgetState]
        if let all {
            // As `appex widgets run` shows them: enabled, with a kind.
            states = all.filter { $0.discovered.state == .enabled && !$0.key.kind.isEmpty }
        } else {
            states = state.withLock { $0.states }
        }
        let now = host.configuration.environment.clock.now
        let labels =
            all == nil
            ? state.withLock { $0.labels }
            : Dictionary(states.map { ($0.key.description, TileLabel(of: $0)) }) { first, _ in first }
        let configurations =
            all == nil
            ? state.withLock { $0.configurations }
            : Dictionary(
                states.filter(\.descriptor.isConfigurable).map {
                    ($0.key.description, (try? host.configuration(of: $0.key)) ?? [:])
                }
            ) { first, _ in first }
        let tiles = states.map {
            tile(
                of: $0,
                label: labels[$0.key.description] ?? TileLabel(of: $0),
                configuration: configurations[$0.key.description] ?? [:],
                at: now
            )
        }
        let rows =
            all == nil
            ? state.withLock { $0.rows }
            : ((try? host.extensions()) ?? []).map { ExtensionRow(found: $0, summary: nil) }
        let sends = state.withLock { state -> [(AsyncStream<WindowUpdate>.Continuation, [WindowUpdate])] in
            let (wasLoaded, oldTiles, oldRows) = (state.loaded, state.tiles, state.rows)
            // Loaded once the host's states came (a redraw of none before them is not a load).
            if all != nil { state.loaded = true }
            guard state.loaded else { return [] }
            state.states = states
            state.labels = labels
            state.configurations = configurations
            state.tiles = tiles
            state.rows = rows
            var desktop: [WindowUpdate] = []
            if !wasLoaded || oldTiles.map(\.id) != tiles.map(\.id) || oldRows.isEmpty != rows.isEmpty {
                desktop = [WindowUpdate(id: Self.desktopID, markup: desktopMarkup((true, tiles, !rows.isEmpty)))]
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
        if all != nil { releaseLoadWaiters() }
        for (watcher, updates) in sends {
            for update in updates { watcher.yield(update) }
        }
    }

    /// One widget's tile: the widget host's own HTML of it (escaped there; its styles in
    /// `data-style`); under it, whose it is (``TileLabel``), a mark when it is stale or out of
    /// reloads for the day, and when it last got a timeline.
    private func tile(
        of widget: WidgetState,
        label: TileLabel,
        configuration: [String: String],
        at now: Date
    ) -> Tile {
        let key = widget.key.description
        let id = ElementID.make("widget", for: key)
        let health: String =
            switch widget.health {
            case .current: "current"
            case .notLoaded: "not-loaded"
            case .stale: "stale"
            case .budgetExhausted: "budget-exhausted"
            }
        // A configurable widget's form shows its configuration now.
        let edit = [WidgetEditForm.markup(of: widget, values: configuration)].compactMap { $0 }
        let markup = Markup.element(
            "section",
            [
                "id": id, "class": "widget-tile", "data-widget": key, "data-health": health,
                "data-entry": Self.entryMark(widget, at: now),
            ],
            [
                .trusted(renderer.fragment(widget.frame(at: now))),
                .element("footer", ["class": "tile-label"], [label.markup] + Self.mark(of: widget)),
                .element("p", ["class": "updated"], [.text(Self.updated(widget.fetchedAt, now: now))]),
            ] + edit
        )
        return Tile(key: key, id: id, markup: markup)
    }

    /// The mark of a widget that does not show its current timeline: "stale" (its last fetch
    /// failed) or "no reloads left today" (its daily budget is used up), with the reason as its
    /// title; none otherwise.
    static func mark(of widget: WidgetState) -> [Markup] {
        let (kind, text): (String, String)
        switch widget.health {
        case .stale: (kind, text) = ("stale", "stale")
        case .budgetExhausted: (kind, text) = ("budget", "no reloads left today")
        case .current, .notLoaded: return []
        }
        return [
            .element("span", ["class": "mark mark-\(kind)", "title": widget.statusLine ?? text], [.text(text)])
        ]
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

    /// The desktop: its tiles, or what to do when there are none (`installed`: some widget
    /// extension is on the machine).
    private func desktopMarkup(_ value: (loaded: Bool, tiles: [Tile], installed: Bool)) -> Markup {
        let children: [Markup]
        if !value.loaded {
            children = [.element("p", ["class": "empty"], [.text("Loading widgets…")])]
        } else if value.tiles.isEmpty && !value.installed {
            children = [
                .element(
                    "p",
                    ["class": "empty"],
                    [
                        .text(
                            "No widget is installed. Make one with appex new widget NAME and follow its README, or install an app that has widgets."
                        )
                    ]
                )
            ]
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
