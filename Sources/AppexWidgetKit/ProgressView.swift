/// Progress, as in SwiftUI: a bar of `value` out of `total`, or a running timer. Drawn as text:
/// ten cells, filled in proportion, and the percentage.
public struct ProgressView: View {
    let runs: [TextRun]
    /// What the progress is of, drawn before it; `nil` for none.
    var label: (any View)?
    /// The current value's label, drawn after it; `nil` for none.
    var currentValueLabel: (any View)?

    /// Progress of `value` out of `total`; `nil` for progress of unknown amount.
    public init(value: Double?, total: Double = 1) {
        runs = [TextRun(content: .verbatim(Self.bar(value, total: total)))]
    }

    /// Titled progress of `value` out of `total`.
    public init<S: StringProtocol>(_ title: S, value: Double?, total: Double = 1) {
        runs = [TextRun(content: .verbatim(String(title) + " " + Self.bar(value, total: total)))]
    }

    /// Progress of unknown amount (a spinner elsewhere).
    public init() { runs = [TextRun(content: .verbatim("…"))] }

    /// The time left until `interval`'s end (or since its start), kept current when drawn.
    public init(timerInterval interval: ClosedRange<Date>, countsDown: Bool = true) {
        let date = countsDown ? interval.upperBound : interval.lowerBound
        runs = [TextRun(content: .date(date.timeIntervalSince1970, .timer))]
    }

    /// The time left until `interval`'s end (or since its start), with a label and a label of
    /// the current value (a circular timer in an accessory widget).
    public init<Label: View, CurrentValueLabel: View>(
        timerInterval interval: ClosedRange<Date>,
        countsDown: Bool = true,
        @ViewBuilder label: () -> Label,
        @ViewBuilder currentValueLabel: () -> CurrentValueLabel
    ) {
        self.init(timerInterval: interval, countsDown: countsDown)
        self.label = label()
        self.currentValueLabel = currentValueLabel()
    }

    /// The same, under the name of the iOS 16 betas' API (`interval:countdown:`), which code
    /// written then still uses.
    public init<Label: View, CurrentValueLabel: View>(
        interval: ClosedRange<Date>,
        countdown: Bool = true,
        @ViewBuilder label: () -> Label,
        @ViewBuilder currentValueLabel: () -> CurrentValueLabel
    ) {
        self.init(timerInterval: interval, countsDown: countdown, label: label, currentValueLabel: currentValueLabel)
    }

    /// Progress of `value` out of `total`, with a label.
    public init<Label: View>(value: Double?, total: Double = 1, @ViewBuilder label: () -> Label) {
        self.init(value: value, total: total)
        self.label = label()
    }

    /// Progress of `value` out of `total`, with a label and a label of the current value.
    public init<Label: View, CurrentValueLabel: View>(
        value: Double?,
        total: Double = 1,
        @ViewBuilder label: () -> Label,
        @ViewBuilder currentValueLabel: () -> CurrentValueLabel
    ) {
        self.init(value: value, total: total)
        self.label = label()
        self.currentValueLabel = currentValueLabel()
    }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view: the progress, with its labels
    /// (the label before it, the current value's after it) when it has them.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        let progress = view.node(in: resolution.environment)
        guard view.label != nil || view.currentValueLabel != nil else {
            resolution.node = progress
            return
        }
        var children: [ViewNode] = []
        if let label = view.label { children.append(ViewResolver.node(of: label)) }
        children.append(progress)
        if let current = view.currentValueLabel { children.append(ViewResolver.node(of: current)) }
        resolution.node = .stack(.horizontal, alignment: .center, spacing: nil, children: children)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode { .text(runs) }

    static func bar(_ value: Double?, total: Double) -> String {
        guard let value, total > 0, value.isFinite, total.isFinite else { return "…" }
        let fraction = min(1, max(0, value / total))
        let filled = Int((fraction * 10).rounded())
        return String(repeating: "▰", count: filled) + String(repeating: "▱", count: 10 - filled)
            + " \(Int((fraction * 100).rounded()))%"
    }
}

/// A value in a range, as in SwiftUI's `Gauge` (common in accessory widgets): its label, a bar and
/// its current value's label, side by side.
public struct Gauge<Label: View, CurrentValueLabel: View>: View {
    let fraction: Double
    let label: Label
    let currentValueLabel: CurrentValueLabel?

    /// A gauge of `value` in `bounds` with a label and a label of the current value.
    public init(
        value: Double,
        in bounds: ClosedRange<Double> = 0...1,
        @ViewBuilder label: () -> Label,
        @ViewBuilder currentValueLabel: () -> CurrentValueLabel
    ) {
        let width = bounds.upperBound - bounds.lowerBound
        fraction = width > 0 ? (value - bounds.lowerBound) / width : 0
        self.label = label()
        self.currentValueLabel = currentValueLabel()
    }

    /// A gauge with labels for its bounds too; on Linux the bounds' labels are not drawn.
    public init<MinimumLabel: View, MaximumLabel: View>(
        value: Double,
        in bounds: ClosedRange<Double> = 0...1,
        @ViewBuilder label: () -> Label,
        @ViewBuilder currentValueLabel: () -> CurrentValueLabel,
        @ViewBuilder minimumValueLabel: () -> MinimumLabel,
        @ViewBuilder maximumValueLabel: () -> MaximumLabel
    ) {
        self.init(value: value, in: bounds, label: label, currentValueLabel: currentValueLabel)
    }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        var children = ViewResolver.node(of: label).flattened
        children.append(.text([TextRun(content: .verbatim(ProgressView.bar(fraction, total: 1)))]))
        if let currentValueLabel { children += ViewResolver.node(of: currentValueLabel).flattened }
        return .stack(.horizontal, alignment: .center, spacing: nil, children: children)
    }
}

extension Gauge where CurrentValueLabel == EmptyView {
    /// A gauge of `value` in `bounds` with a label.
    public init(value: Double, in bounds: ClosedRange<Double> = 0...1, @ViewBuilder label: () -> Label) {
        self.init(value: value, in: bounds, label: label, currentValueLabel: { EmptyView() })
    }
}

/// How a gauge is drawn; ignored on Linux (a struct here, where SwiftUI has a protocol, so
/// `.gaugeStyle(.accessoryCircular)` reads the same).
public struct GaugeStyle: Sendable, Hashable {
    let name: String
    /// A circular gauge.
    public static let accessoryCircular = GaugeStyle(name: "accessoryCircular")
    /// A circular gauge with its value.
    public static let accessoryCircularCapacity = GaugeStyle(name: "accessoryCircularCapacity")
    /// A linear gauge.
    public static let accessoryLinear = GaugeStyle(name: "accessoryLinear")
    /// A linear gauge with its value.
    public static let accessoryLinearCapacity = GaugeStyle(name: "accessoryLinearCapacity")
    /// The platform's choice.
    public static let automatic = GaugeStyle(name: "automatic")
    /// A linear capacity gauge.
    public static let linearCapacity = GaugeStyle(name: "linearCapacity")
}
