internal import Foundation

/// A control that no person configures, as WidgetKit's `StaticControlConfiguration`: a kind, an
/// optional provider of its value, and the template drawn with the value.
public struct StaticControlConfiguration<Content: ControlWidgetTemplate & SendableMetatype>:
    ControlWidgetConfiguration, WidgetConfiguration
{
    var widget: ResolvedWidget
    /// Implementation detail: the widget the host shows for this control.
    public var _widgets: _WidgetList { _WidgetList([widget]) }

    /// A control of `kind` drawn as `content` (a button, whose template needs no value).
    public init(kind: String, @ControlWidgetTemplateBuilder content: @escaping @Sendable () -> Content) {
        self.init(kind: kind, provider: NoValue()) { _ in content() }
    }

    /// A control of `kind` drawn as `content` with the value `provider` gives.
    public init<Provider: ControlValueProvider>(
        kind: String,
        provider: Provider,
        @ControlWidgetTemplateBuilder content: @escaping @Sendable (Provider.Value) -> Content
    ) {
        @Sendable func current() async throws(AppexError) -> ControlEntry<Provider.Value> {
            do { return ControlEntry(date: Date(), value: try await provider.currentValue()) } catch {
                throw AppexError(
                    .remoteFailure,
                    "control \(kind): its value provider failed: \(error)",
                    context: .init(widgetKind: kind)
                )
            }
        }
        widget = ResolvedWidget(
            kind: kind,
            content: { (entry: ControlEntry<Provider.Value>) in content(entry.value) },
            placeholder: { _ in ControlEntry(date: Date(), value: provider.previewValue) },
            snapshot: { context throws(AppexError) in
                context.isPreview ? ControlEntry(date: Date(), value: provider.previewValue) : try await current()
            },
            // Read again when the host asks: after the control's intent ran, or a reload.
            timeline: { _ throws(AppexError) in Timeline(entries: [try await current()], policy: .never) }
        )
        widget.descriptor.description = "Control"
        widget.descriptor.supportedFamilies = [.systemSmall]
    }

    /// The name people see in the controls gallery.
    public func displayName(_ name: LocalizedStringResource) -> Self {
        var copy = self
        copy.widget.descriptor.displayName = String(describing: name)
        return copy
    }

    /// What the control does, in a sentence.
    public func description(_ description: LocalizedStringResource) -> Self {
        var copy = self
        copy.widget.descriptor.description = String(describing: description)
        return copy
    }

    /// The name people see in the controls gallery.
    public func displayName<S: StringProtocol>(_ name: S) -> Self {
        displayName(LocalizedStringResource(String(name)))
    }

    /// What the control does, in a sentence.
    public func description<S: StringProtocol>(_ description: S) -> Self {
        self.description(LocalizedStringResource(String(description)))
    }

    /// Accepted: a static control asks nothing of its person.
    public func promptsForUserConfiguration() -> Self { self }
}

/// One drawing of a control: its value when drawn.
struct ControlEntry<Value: Sendable>: TimelineEntry {
    let date: Date
    let value: Value
}

/// The value of a control that has none (a button).
struct NoValue: ControlValueProvider {
    var previewValue: Bool { false }
    func currentValue() async throws -> Bool { false }
}
