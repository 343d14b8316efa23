import AppexWidgetHost
import AppexWidgetKit

/// A configurable widget's "Edit widget" form under its tile: a field for each parameter of its
/// intent (a list for an `AppEnum`'s cases, an options provider's values and a switch; text,
/// number, date or URL fields otherwise), showing the placed widget's configuration, and its
/// presets as buttons. Each field posts its own value when committed (`configure`, with the
/// widget's `key` and the `parameter`); a preset posts `preset`. The widget host checks them as
/// `appex widgets configure` does.
enum WidgetEditForm {
    /// The form of `widget`, whose configuration is `values` (JSON text by name); `nil` for a
    /// widget its person does not configure.
    static func markup(of widget: WidgetState, values: [String: String]) -> Markup? {
        let descriptor = widget.descriptor
        guard descriptor.isConfigurable else { return nil }
        let key = widget.key.description
        var fields: [Markup] = []
        for parameter in descriptor.parameters {
            let id = ElementID.make("parameter", for: key + "\u{0}" + parameter.name)
            fields.append(.element("label", ["for": id], [.text(parameter.title)]))
            fields.append(field(parameter, current: values[parameter.name] ?? parameter.defaultValue, id: id, key: key))
        }
        if !descriptor.recommendations.isEmpty {
            let buttons = descriptor.recommendations.map { preset in
                Markup.element(
                    "button",
                    ["type": "button", "data-action": "preset", "data-key": key, "data-preset": preset.description],
                    [.text(preset.description)]
                )
            }
            fields.append(.element("div", ["class": "presets"], buttons))
        }
        return .element(
            "details",
            ["class": "edit-widget"],
            [
                .element("summary", [:], [.text("Edit widget")]),
                .element("form", ["aria-label": "Edit \(descriptor.displayName)"], fields),
            ]
        )
    }

    /// The field of `parameter` (its element `id`, on the widget `key`), showing `current` (JSON text).
    private static func field(_ parameter: WidgetParameter, current: String?, id: String, key: String) -> Markup {
        let shown = current.map { WidgetHost.typedText(ofJSON: $0, for: parameter) } ?? ""
        var choices: [(value: String, title: String)] = []
        if !parameter.options.isEmpty {
            choices = parameter.options.map { (WidgetHost.typedText(ofJSON: $0.value, for: parameter), $0.title) }
            if parameter.isOptional { choices.insert(("", "None"), at: 0) }
        } else if parameter.kind == .boolean {
            choices = [("yes", "Yes"), ("no", "No")]
        }
        if !choices.isEmpty {
            let selected = parameter.kind == .boolean ? (shown == "true" ? "yes" : "no") : shown
            let options = choices.map { choice in
                choice.value == selected
                    ? Markup.element("option", ["value": choice.value, "selected": ""], [.text(choice.title)])
                    : Markup.element("option", ["value": choice.value], [.text(choice.title)])
            }
            return .element(
                "select",
                ["id": id, "data-action": "configure", "data-key": key, "data-parameter": parameter.name],
                options
            )
        }
        let type: String =
            switch parameter.kind {
            case .integer, .number: "number"
            case .date: "date"
            case .url: "url"
            case .text, .boolean, .choice: "text"
            }
        return .element(
            "input",
            [
                "id": id, "type": type, "step": parameter.kind == .number ? "any" : "1", "value": shown,
                "data-action": "configure", "data-key": key, "data-parameter": parameter.name,
            ]
        )
    }
}
