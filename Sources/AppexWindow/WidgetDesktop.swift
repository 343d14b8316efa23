public import AppexWidgetHost
public import AppexWidgetKit
import Foundation

/// The system widget host's window (`appex widgets serve`): a desktop that shows every enabled
/// widget at its family's size, current without reload, and a settings page with every widget
/// extension on the machine and its toggle.
///
/// ```swift
/// let desktop = WidgetDesktop(host: try WidgetHost())
/// let window = try WindowServer(pages: desktop.pages)
/// ```
///
/// The desktop follows ``/AppexWidgetHost/WidgetHost/updates(family:rescan:)``: a new timeline
/// entry at its date, a `WidgetCenter` reload, an enable or disable from any process, and a
/// widget that fails (its stale mark and "updated N minutes ago") each replace that widget's
/// tile on every open page. A tap on a `Link` or a `widgetURL` opens the containing app, as
/// `appex widgets open` does, and only with a URL that the widget's current entry holds.
public final class WidgetDesktop: Sendable {
    /// The desktop at `/` and its settings at `/settings`.
    public let pages: [any WindowPage]

    /// The window of `host`, showing each widget in `family` when it supports it (otherwise,
    /// and by default, its first supported family).
    public init(host: WidgetHost, family: WidgetFamily? = nil) {
        let model = DesktopModel(host: host, family: family)
        pages = [WidgetDesktopPage(model: model), WidgetSettingsPage(model: model)]
    }
}

/// The desktop: a tile per enabled widget.
final class WidgetDesktopPage: WindowPage {
    let path = "/"
    let title = "Widgets"
    let model: DesktopModel

    init(model: DesktopModel) { self.model = model }

    func render() async throws(AppexError) -> Markup { await model.desktop() }

    func updates() -> AsyncStream<WindowUpdate> { model.subscribe(to: .desktop) }

    /// `open`: a tap on a widget, with its `key` and the `url` tapped; `intent`: a tap on an
    /// interactive widget's control, with its `key`, the control's number (`intent`) and the
    /// entry the tile showed (`entry`), which must still be the one shown; `configure`: a field
    /// of a widget's "Edit widget" form, with its `key`, the `parameter` and its `value`; `preset`:
    /// a preset picked there.
    func perform(_ action: WindowAction) async throws(AppexError) {
        switch (action.name, action.fields["key"]) {
        case ("open", let key?):
            try model.open(key: key, url: action.fields["url"])
        case ("intent", let key?):
            guard let index = action.fields["intent"].flatMap({ Int($0) }) else {
                throw AppexError(.invalidValue, "an intent tap names its control by number", context: .init(key: key))
            }
            try await model.performIntent(key: key, index: index, entry: action.fields["entry"])
        case ("configure", let key?):
            try model.configure(
                key: key,
                parameter: action.fields["parameter"],
                value: action.fields["value"],
                preset: nil
            )
        case ("preset", let key?):
            try model.configure(key: key, parameter: nil, value: nil, preset: action.fields["preset"])
        default:
            throw AppexError(
                .invalidValue,
                "the widget desktop takes open, intent, configure or preset with a widget's key, not \(action.name)",
                context: AppexError.Context(key: action.name)
            )
        }
    }
}

/// The widget settings: every widget extension on the machine, enabled or not, with its toggle.
final class WidgetSettingsPage: WindowPage {
    let path = "/settings"
    let title = "Widget settings"
    let model: DesktopModel

    init(model: DesktopModel) { self.model = model }

    func render() async throws(AppexError) -> Markup { await model.settings() }

    func updates() -> AsyncStream<WindowUpdate> { model.subscribe(to: .settings) }

    /// `set-enabled`, from a toggle: as `appex widgets enable` and `disable`.
    func perform(_ action: WindowAction) async throws(AppexError) {
        let (bundle, enabled) = try action.enablement(on: "the widget settings")
        try model.host.setEnabled(enabled, bundleIdentifier: bundle)
    }
}
