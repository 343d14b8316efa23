import AppexWidgetKit

// Controls (iOS 18), as a widget extension declares them: a switch whose value a provider reads
// and whose SetValueIntent sets it, and a button that performs an intent. The lamp's state is a
// file in the extension's container (its HOME: all its sandbox lets it write).

enum Lamp {
    static var path: String { (ProcessInfo.processInfo.environment["HOME"] ?? "/tmp") + "/lamp" }
    static var isOn: Bool { (try? String(contentsOfFile: path, encoding: .utf8)) == "on" }
    static func set(_ on: Bool) throws {
        try (on ? "on" : "off").write(toFile: path, atomically: true, encoding: .utf8)
    }
}

struct LampValue: ControlValueProvider {
    var previewValue: Bool { false }
    func currentValue() async throws -> Bool { Lamp.isOn }
}

struct SetLampIntent: SetValueIntent {
    static let title: LocalizedStringResource = "Turn the lamp on or off"

    @Parameter(title: "Lamp is on")
    var value: Bool

    func perform() async throws -> some IntentResult {
        try Lamp.set(value)
        return .result()
    }
}

struct RingIntent: AppIntent {
    static let title: LocalizedStringResource = "Ring the bell"

    func perform() async throws -> some IntentResult {
        let path = (ProcessInfo.processInfo.environment["HOME"] ?? "/tmp") + "/rings"
        let rings = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        try (rings + "ring\n").write(toFile: path, atomically: true, encoding: .utf8)
        return .result()
    }
}

struct LampControl: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "Lamp", provider: LampValue()) { isOn in
            ControlWidgetToggle("Lamp", isOn: isOn, action: SetLampIntent()) { isOn in
                Label(isOn ? "On" : "Off", systemImage: "lightbulb")
            }
        }
        .displayName("Lamp")
        .description("Turns the lamp on and off.")
    }
}

struct BellControl: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "Bell") {
            ControlWidgetButton(action: RingIntent()) {
                Label("Ring", systemImage: "bell")
            }
        }
        .displayName("Bell")
    }
}
