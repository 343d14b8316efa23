// Modifiers that mean nothing on Linux: accepted, so widget code compiles unchanged, and
// documented as ignored.
extension View {
    /// Accepted and ignored on Linux: text is drawn at its font's size.
    public func minimumScaleFactor(_ factor: Double) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: text is aligned by its stack.
    public func multilineTextAlignment(_ alignment: TextAlignment) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: widgets are never shown redacted.
    public func privacySensitive(_ sensitive: Bool = true) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: widgets are never shown redacted.
    public func redacted(reason: RedactionReasons) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func unredacted() -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: widgets are drawn in full colour.
    public func widgetAccentable(_ accentable: Bool = true) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: renderers draw no animation.
    public func contentTransition(_ transition: ContentTransition) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func invalidatableContent(_ invalidatable: Bool = true) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: no transparency in a terminal.
    public func opacity(_ opacity: Double) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: corners are square.
    public func cornerRadius(_ radius: Double) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func layoutPriority(_ priority: Double) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func imageScale(_ scale: Image.Scale) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func symbolRenderingMode(_ mode: SymbolRenderingMode?) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func accessibilityLabel(_ label: String) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func id(_ id: some Hashable) -> ModifiedContent<Self> { modified { $0 } }

    /// Accepted and ignored on Linux: no shadows in a terminal or the page.
    public func shadow(color: Color = .black, radius: Double, x: Double = 0, y: Double = 0) -> ModifiedContent<Self> {
        modified { $0 }
    }
    /// Accepted and ignored on Linux: content keeps the size it is given.
    public func fixedSize() -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: content keeps the size it is given.
    public func fixedSize(horizontal: Bool, vertical: Bool) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: content is drawn where its stack puts it.
    public func offset(x: Double = 0, y: Double = 0) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func border(_ style: some ShapeStyle, width: Double = 1) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: widgets are drawn in full colour.
    public func tint(_ tint: Color?) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: there are no safe areas.
    public func ignoresSafeArea() -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func accessibilityHidden(_ hidden: Bool) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func accessibilityElement(children: AccessibilityChildBehavior = .ignore) -> ModifiedContent<Self> {
        modified { $0 }
    }
    /// Accepted and ignored on Linux: text keeps its case.
    public func textCase(_ textCase: Text.Case?) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: text is cut at its end.
    public func truncationMode(_ mode: Text.TruncationMode) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func fontDesign(_ design: Font.Design?) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: images are drawn at text size.
    public func aspectRatio(_ ratio: Double? = nil, contentMode: ContentMode) -> ModifiedContent<Self> {
        modified { $0 }
    }
    /// Accepted and ignored on Linux.
    public func scaledToFit() -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func scaledToFill() -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: a label is drawn with its icon and title.
    public func labelStyle(_ style: LabelStyle) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: no accessory labels are drawn.
    public func widgetLabel<S: StringProtocol>(_ label: S) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: no accessory labels are drawn.
    public func widgetLabel<Label: View>(@ViewBuilder label: () -> Label) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: gauges are drawn as a bar.
    public func gaugeStyle(_ style: GaugeStyle) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: progress is drawn as a bar.
    public func progressViewStyle(_ style: ProgressViewStyle) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: content is not clipped to a shape.
    public func clipShape(_ shape: some Shape) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func clipped() -> ModifiedContent<Self> { modified { $0 } }
}
